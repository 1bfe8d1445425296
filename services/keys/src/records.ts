/**
 * @module keys/records
 * How keys look to callers (never a secret or its hash), who the caller is, which keys a caller may
 * manage, and in which tenant scope a call reads and writes keys. Dates are RFC 3339 strings or null.
 *
 * Status as shown: `active`, `expired` (its expiry has passed; stored status is still `active`,
 * since expiry is a time) or `revoked`.
 */
import { asSystem, GantryError, notFound, withTenant, type CallContext } from "@gantry/kit";
import { oneOf } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import { KEY_EVENT_KINDS } from "@gantry/proto/catalogue/keys.ts";
import type { PrismaClient } from "./db.ts";
import type { Context, RateLimitPolicy } from "./context.ts";
import type { Grant } from "./containment.ts";
import { isLegacyId, type LegacyKey } from "./legacy.ts";

export type ApiKeyRow = NonNullable<Awaited<ReturnType<PrismaClient["apiKey"]["findFirst"]>>>;
export type KeyEventRow = NonNullable<Awaited<ReturnType<PrismaClient["keyEvent"]["findFirst"]>>>;
/** The columns of a key that its view shows (`rowView`): never the secret's hash. */
export type KeyViewRow = Omit<ApiKeyRow, "secretHash" | "origin">;

/**
 * Runs a key.* handler in the scope its caller may see. The kit runs every call in its tenant's
 * scope (row-level security: that tenant's keys and its sub-tenants'); admin keys are root keys
 * that list, issue, revoke and rotate keys of every tenant, so their calls run in system scope.
 * Tenant keys stay in the call's scope: even a query without its tenant clause cannot reach another
 * tenant's key.
 */
export function asCaller<T>(call: CallContext, fn: () => Promise<T>): Promise<T> {
  return call.admin ? asSystem(async () => await fn()) : fn();
}

/**
 * Runs `fn` in the scope of the calling key's own tenant, for reading the calling key itself (its
 * row, trail, predecessor): a key acting for a sub-tenant (`acme/shop1`) is stored under its own
 * tenant (`acme`), which the call's narrower scope does not see.
 */
export function asCallingKey<T>(call: CallContext, fn: () => Promise<T>): Promise<T> {
  // Awaited inside the scope: a Prisma query is lazy and runs only when awaited, so returning it
  // unawaited would run it after the scope ends (outside any scope: no rows).
  return withTenant(call.keyTenant || call.tenant, async () => await fn());
}

/** A key as key.list and key.inspect show it (no secret): the catalogue's result schema. */
export type KeyView = OutputOf<"key.list">["keys"][number];

/** One event of a key's trail. */
export type KeyEventView = NonNullable<KeyView["events"]>[number];

export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

export function statusOf(row: Pick<ApiKeyRow, "status" | "expiresAt">, now: number): KeyView["status"] {
  if (row.status === "revoked") return "revoked";
  if (row.expiresAt && row.expiresAt.getTime() <= now) return "expired";
  return "active";
}

export function rowView(row: KeyViewRow, now: number, rotatedFrom: string | null = null): KeyView {
  return {
    id: row.id,
    tenant: row.tenant,
    name: row.name,
    prefix: row.prefix,
    status: statusOf(row, now),
    scopes: row.scopes,
    collections: row.collections,
    products: row.products,
    subTenants: row.subTenants,
    admin: row.admin,
    rateLimit: ownRateLimitOf(row),
    created: iso(row.createdAt),
    expires: iso(row.expiresAt),
    lastUsed: iso(row.lastUsedAt),
    revoked: iso(row.revokedAt),
    rotatedTo: row.rotatedTo,
    rotatedFrom,
    source: "key",
  };
}

export function legacyView(k: LegacyKey, lastUsed: Date | null): KeyView {
  return {
    id: k.id,
    tenant: k.tenant,
    name: k.name,
    prefix: k.prefix,
    status: "active",
    scopes: k.scopes,
    collections: k.collections,
    products: k.products,
    subTenants: k.subTenants,
    admin: k.admin,
    rateLimit: null,
    created: null,
    expires: null,
    lastUsed: iso(lastUsed),
    revoked: null,
    rotatedTo: null,
    rotatedFrom: null,
    source: "legacy",
  };
}

export function eventView(e: KeyEventRow): KeyEventView {
  return {
    kind: oneOf(KEY_EVENT_KINDS, e.kind, "key event kind"),
    at: e.at.toISOString(),
    reason: e.reason,
    actorKeyId: e.actorKeyId,
    requestId: e.requestId,
  };
}

/** Events of these keys, oldest first, at most `perKey` (the most recent) per key. */
export async function eventsOf(ctx: Context, ids: string[], perKey = 50): Promise<Map<string, KeyEventView[]>> {
  const out = new Map<string, KeyEventView[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await ctx.db.keyEvent.findMany({
    where: { keyId: { in: ids } },
    orderBy: [{ at: "asc" }, { id: "asc" }],
  });
  for (const r of rows) out.get(r.keyId)?.push(eventView(r));
  for (const [id, list] of out) if (list.length > perKey) out.set(id, list.slice(-perKey));
  return out;
}

/** `rotatedFrom` for each of these keys (the predecessor whose `rotated_to` names it). */
export async function predecessorsOf(ctx: Context, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.apiKey.findMany({
    where: { rotatedTo: { in: ids } },
    select: { id: true, rotatedTo: true },
  });
  return new Map(rows.map((r) => [r.rotatedTo!, r.id]));
}

/** The calling key: what containment compares against, plus its own (not defaulted) rate limit. */
export interface Caller extends Grant {
  id: string;
  ownRateLimit: RateLimitPolicy | null;
}

/** The calling key, from the store or the legacy store; its tenant is the acting tenant of the call. */
export async function callerOf(ctx: Context, call: CallContext): Promise<Caller> {
  if (isLegacyId(call.keyId)) {
    const k = ctx.legacy.byId(call.keyId);
    if (!k) throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
    return {
      id: k.id,
      tenant: call.tenant,
      scopes: k.scopes,
      collections: k.collections,
      products: k.products,
      admin: k.admin,
      subTenants: k.subTenants,
      rateLimit: ctx.defaultRateLimit,
      ownRateLimit: null,
      expiresAt: null,
    };
  }
  const row = await asCallingKey(call, () => ctx.db.apiKey.findFirst({ where: { id: call.keyId } }));
  if (!row || statusOf(row, ctx.now()) !== "active") {
    // Revoked or expired between the gateway's check and now.
    throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
  }
  return { ...grantOf(row, ctx.defaultRateLimit), id: row.id, tenant: call.tenant, ownRateLimit: ownRateLimitOf(row) };
}

export function ownRateLimitOf(row: Pick<ApiKeyRow, "rateLimit" | "rateWindowSeconds">): RateLimitPolicy | null {
  return row.rateLimit && row.rateWindowSeconds ? { limit: row.rateLimit, windowSeconds: row.rateWindowSeconds } : null;
}

export function grantOf(row: ApiKeyRow, defaultRateLimit: RateLimitPolicy): Grant {
  return {
    tenant: row.tenant,
    scopes: row.scopes,
    collections: row.collections,
    products: row.products,
    admin: row.admin,
    subTenants: row.subTenants,
    rateLimit: ownRateLimitOf(row) ?? defaultRateLimit,
    expiresAt: row.expiresAt?.getTime() ?? null,
  };
}

/** What a 404 for a key the caller may not manage says to do. */
const UNKNOWN_KEY = { reason: "key.list shows the keys this key may manage." };

/**
 * The stored key `id`, if the caller may manage it: admin keys any key, tenant keys only keys of
 * their own (acting) tenant. Another tenant's key is "not found", exactly like a key that does not
 * exist, so ids cannot be probed across tenants. Legacy keys: refused with `legacy_key` (they live
 * in the environment, not the store).
 */
export async function manageableKey(ctx: Context, call: CallContext, id: string, action: string): Promise<ApiKeyRow> {
  if (isLegacyId(id)) {
    const k = ctx.legacy.byId(id);
    if (!k || (!call.admin && k.tenant !== call.tenant)) throw notFound("key", id, UNKNOWN_KEY);
    throw new GantryError(
      "invalid_request",
      `${id} is a legacy key from GANTRY_LEGACY_KEYS; it cannot be ${action} through the API.`,
      {
        reason:
          "Issue a stored key with key.issue, move the client to it, then remove the entry from GANTRY_LEGACY_KEYS.",
        details: [{ path: "/input/id", message: `legacy keys cannot be ${action}`, code: "legacy_key" }],
      },
    );
  }
  // findFirst, never batched with other calls' lookups (findUnique is): the row comes back under this call's scope.
  const row = await ctx.db.apiKey.findFirst({ where: { id } });
  if (!row || (!call.admin && row.tenant !== call.tenant)) throw notFound("key", id, UNKNOWN_KEY);
  return row;
}
