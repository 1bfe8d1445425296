/**
 * @module keys/abilities/key.issue
 * Mints a key. The raw secret is in this result and nowhere else: only its SHA-256 is stored, and
 * the logger redacts `key`. A tenant key may only mint keys no wider than itself (see
 * ../containment.ts); omitted `expiresInHours` / `rateLimit` inherit the caller's (admin keys: no
 * expiry / the deployment default). Scopes that match no ability in the catalogue are refused (400,
 * `unknown_scope`), for admins too: they are typos, not future-proofing.
 *
 * Result: `{id, key, prefix, tenant, name, scopes, collections, products, subTenants, admin,
 * rateLimit, created, expires}`. Publishes `keys.key.issued`.
 *
 * Tenant keys write in their call's scope (containment keeps the tenant theirs); admin keys issue
 * for any tenant, in system scope (`asCaller`).
 */
import { GantryError, SUBJECTS, generateKey, hashKey, keyPrefix, newKeyId } from "@gantry/kit";
import { expandScopes } from "@gantry/proto/catalogue";
import { ability } from "../context.ts";
import { excess, type Grant } from "../containment.ts";
import { asCaller, callerOf, iso } from "../records.ts";

export default ability("key.issue", (input, call, ctx) =>
  asCaller(call, async () => {
    const unknown = input.scopes.filter((s) => expandScopes([s]).length === 0);
    if (unknown.length) {
      throw new GantryError(
        "invalid_request",
        `Scope${unknown.length > 1 ? "s" : ""} ${unknown.map((s) => `"${s}"`).join(", ")} match${unknown.length > 1 ? "" : "es"} no ability.`,
        {
          reason: "Scopes are ability ids, <prefix>.* patterns or *; GET /v1/abilities lists the ids.",
          details: unknown.map((scope) => ({
            path: "/input/scopes",
            message: `scope "${scope}" matches no ability`,
            code: "unknown_scope",
            scope,
          })),
        },
      );
    }
    const now = ctx.now();
    const caller = await callerOf(ctx, call);
    const tenant = input.tenant ?? call.tenant;
    const expiresAt =
      input.expiresInHours !== undefined
        ? now + Math.round(input.expiresInHours * 3_600_000)
        : caller.admin
          ? null
          : caller.expiresAt;
    // Stored limit: as requested; else the caller's own (tenant keys); else the deployment default (null).
    const rateLimit = input.rateLimit ?? (caller.admin ? null : caller.ownRateLimit);
    const requested: Grant = {
      tenant,
      scopes: input.scopes,
      collections: input.collections ?? [],
      products: input.products ?? [],
      admin: input.admin,
      subTenants: input.subTenants,
      rateLimit: rateLimit ?? ctx.defaultRateLimit,
      expiresAt,
    };
    if (!caller.admin) {
      const over = excess(caller, requested);
      if (over.length) {
        throw new GantryError(
          "forbidden",
          `The key would be wider than the key issuing it: ${over.map((d) => d.message).join("; ")}.`,
          {
            reason:
              "A tenant key can only issue keys within its own scopes, collections, products, flags, rate limit and expiry.",
            details: over,
          },
        );
      }
    }

    const raw = generateKey();
    const id = newKeyId();
    const created = new Date(now);
    const { row, notice } = await ctx.db.$transaction(async (tx) => {
      const row = await tx.apiKey.create({
        data: {
          id,
          tenant,
          name: input.name,
          prefix: keyPrefix(raw),
          secretHash: hashKey(raw),
          scopes: input.scopes,
          collections: requested.collections,
          products: requested.products,
          admin: input.admin,
          subTenants: input.subTenants,
          rateLimit: rateLimit?.limit ?? null,
          rateWindowSeconds: rateLimit?.windowSeconds ?? null,
          expiresAt: expiresAt === null ? null : new Date(expiresAt),
          createdAt: created,
          origin: "api",
          events: { create: { kind: "issued", actorKeyId: call.keyId, requestId: call.requestId, at: created } },
        },
        include: { events: true },
      });
      const notice = await ctx.notices.enqueue(tx, SUBJECTS.keyIssued, row, String(row.events[0]?.id ?? id));
      return { row, notice };
    });
    await ctx.notices.flush([notice]);
    ctx.log.info({ requestId: call.requestId, keyId: id, tenant, actorKeyId: call.keyId }, "key issued");
    return {
      id,
      key: raw,
      prefix: row.prefix,
      tenant,
      name: row.name,
      scopes: row.scopes,
      collections: row.collections,
      products: row.products,
      subTenants: row.subTenants,
      admin: row.admin,
      rateLimit,
      created: row.createdAt.toISOString(),
      expires: iso(row.expiresAt),
    };
  }),
);
