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
 *
 * Tenant keys read in their call's scope; admin keys across tenants, in system scope (`asCaller`).
 * A cursor this list did not issue is 400 `validation_failed` with detail code `invalid_cursor`
 * (the kit's codec).
 */
import { afterCursor, NEWEST_FIRST, toPage } from "@gantry/kit";
import { ability, type Context } from "../context.ts";
import type { Prisma } from "../db.ts";
import { recordExpired } from "../expiry.ts";
import { asCaller, eventsOf, iso, predecessorsOf, rowView, type KeyView } from "../records.ts";

export default ability("key.list", (input, call, ctx) =>
  asCaller(call, async () => {
    const tenant = call.admin ? input.tenant : call.tenant;
    const and: Prisma.ApiKeyWhereInput[] = [];
    if (tenant !== undefined) and.push({ tenant });
    if (!input.includeRevoked) and.push({ status: "active" });
    and.push(afterCursor(input.cursor) as Prisma.ApiKeyWhereInput);
    const rows = await ctx.db.apiKey.findMany({ where: { AND: and }, orderBy: NEWEST_FIRST, take: input.limit + 1 });
    const page = toPage(rows, input.limit, (r) => r);
    const ids = page.items.map((r) => r.id);
    await recordExpired(ctx, ids);
    const [from, events] = await Promise.all([
      predecessorsOf(ctx, ids),
      input.includeEvents ? eventsOf(ctx, ids, 20) : undefined,
    ]);
    const now = ctx.now();
    const keys: KeyView[] = page.items.map((r) => {
      const v = rowView(r, now, from.get(r.id) ?? null);
      if (events) v.events = events.get(r.id) ?? [];
      return v;
    });
    return { keys, nextCursor: page.nextCursor, ...(call.admin ? await legacySummary(ctx, tenant) : {}) };
  }),
);

async function legacySummary(ctx: Context, tenant: string | undefined) {
  const usage = await ctx.db.legacyUsage.findMany({
    where: tenant === undefined ? {} : { tenant },
    orderBy: { keyId: "asc" },
  });
  const byId = new Map(usage.map((u) => [u.keyId, u]));
  const legacyKeys = ctx.legacy.keys
    .filter((k) => tenant === undefined || k.tenant === tenant)
    .map((k) => {
      const u = byId.get(k.id);
      byId.delete(k.id);
      return {
        id: k.id,
        tenant: k.tenant,
        name: k.name,
        prefix: k.prefix,
        scopes: k.scopes,
        requests: Number(u?.requests ?? 0),
        lastUsed: iso(u?.lastUsedAt),
        configured: true,
      };
    });
  for (const u of byId.values()) {
    legacyKeys.push({
      id: u.keyId,
      tenant: u.tenant,
      name: u.name,
      prefix: "",
      scopes: [],
      requests: Number(u.requests),
      lastUsed: iso(u.lastUsedAt),
      configured: false,
    });
  }
  return { legacyRequests: usage.reduce((n, u) => n + Number(u.requests), 0), legacyKeys };
}
