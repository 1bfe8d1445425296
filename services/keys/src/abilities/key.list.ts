/**
 * @module keys/abilities/key.list
 * Keys without secrets, newest first, paginated by an opaque cursor: `{keys, nextCursor}` (null on
 * the last page). Tenant keys see their own (acting) tenant only and `tenant` is ignored for them;
 * admin keys see every tenant, optionally filtered by `tenant`, and also get `legacyRequests` (requests
 * authenticated through GANTRY_LEGACY_KEYS so far, within the tenant filter) and `legacyKeys` (one
 * row per legacy credential: id, tenant, name, prefix, scopes, requests, lastUsed, and `configured`
 * false once it was removed from the environment). Revoked keys only with `includeRevoked`; expired
 * keys are listed with status `expired` (so a rotation's overlap stays visible). With
 * `includeEvents`, each row carries its event trail (`events`, oldest first, the latest 20).
 */
import { type CallContext } from "@gantry/kit";
import type { KeysContext } from "../context.ts";
import { recordExpired } from "../expiry.ts";
import { decodeCursor, encodeCursor, eventsOf, iso, predecessorsOf, rowView, type KeyView } from "../records.ts";
import type { Prisma } from "../generated/prisma/client.ts";

export interface KeyListInput {
  tenant?: string;
  includeRevoked: boolean;
  includeEvents: boolean;
  limit: number;
  cursor?: string;
}

export async function keyList(input: KeyListInput, call: CallContext, ctx: KeysContext) {
  const tenant = call.admin ? input.tenant : call.tenant;
  const and: Prisma.ApiKeyWhereInput[] = [];
  if (tenant !== undefined) and.push({ tenant });
  if (!input.includeRevoked) and.push({ status: "active" });
  if (input.cursor !== undefined) {
    const c = decodeCursor(input.cursor);
    and.push({ OR: [{ createdAt: { lt: c.createdAt } }, { createdAt: c.createdAt, id: { lt: c.id } }] });
  }
  const rows = await ctx.db.apiKey.findMany({ where: { AND: and }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const ids = page.map((r) => r.id);
  await recordExpired(ctx, ids);
  const [from, events] = await Promise.all([predecessorsOf(ctx, ids), input.includeEvents ? eventsOf(ctx, ids, 20) : undefined]);
  const now = ctx.now();
  const keys: KeyView[] = page.map((r) => {
    const v = rowView(r, now, from.get(r.id) ?? null);
    if (events) v.events = events.get(r.id) ?? [];
    return v;
  });
  const out: Record<string, unknown> = { keys, nextCursor: rows.length > input.limit ? encodeCursor(page[page.length - 1]) : null };
  if (call.admin) Object.assign(out, await legacySummary(ctx, tenant));
  return out;
}

async function legacySummary(ctx: KeysContext, tenant: string | undefined) {
  const usage = await ctx.db.legacyUsage.findMany({ where: tenant === undefined ? {} : { tenant }, orderBy: { keyId: "asc" } });
  const byId = new Map(usage.map((u) => [u.keyId, u]));
  const legacyKeys = ctx.legacy.keys
    .filter((k) => tenant === undefined || k.tenant === tenant)
    .map((k) => {
      const u = byId.get(k.id);
      byId.delete(k.id);
      return { id: k.id, tenant: k.tenant, name: k.name, prefix: k.prefix, scopes: k.scopes, requests: Number(u?.requests ?? 0), lastUsed: iso(u?.lastUsedAt), configured: true };
    });
  for (const u of byId.values()) {
    legacyKeys.push({ id: u.keyId, tenant: u.tenant, name: u.name, prefix: "", scopes: [], requests: Number(u.requests), lastUsed: iso(u.lastUsedAt), configured: false });
  }
  return { legacyRequests: usage.reduce((n, u) => n + Number(u.requests), 0), legacyKeys };
}
