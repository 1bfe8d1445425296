/**
 * @module keys/abilities/key.inspect
 * What the calling key may do (spec §4.3, §5.6): `{id, name, tenant, prefix, status, source, scopes,
 * abilities, collections, products, subTenants, admin, rateLimit, created, expires, lastUsed,
 * revoked, rotatedTo, rotatedFrom, events}`.
 *
 * - `abilities`: what the key may call: `scopes` expanded against the live catalogue, plus the
 *   abilities open to every key (key.inspect, vertical.manifest_get).
 * - `rateLimit`: the key's own; null means the deployment default.
 * - `lastUsed`: from the gateways' batched usage reports (every ~5 s), so it may trail the current
 *   call by that much.
 * - `events`: the key's event trail (issued, rotated, revoked with reason, expired; oldest first,
 *   the latest 50).
 * - `actingTenant` appears when the call used `context.tenantId`.
 * - Legacy keys report `source: "legacy"`, no dates but `lastUsed`, and no events.
 *
 * Reads run in the calling key's own tenant scope (`asCallingKey`): a key acting for a sub-tenant is
 * stored under its own tenant.
 */
import { GantryError, Lru } from "@gantry/kit";
import { OPEN_ABILITIES, expandScopes } from "@gantry/proto/catalogue";
import { ability, type Context } from "../context.ts";
import { recordExpired } from "../expiry.ts";
import { isLegacyId } from "../legacy.ts";
import { eventTupleView, keyForInspect, type InspectRow } from "../reads.ts";
import { asCallingKey, legacyView, rowView } from "../records.ts";

export default ability("key.inspect", (_input, call, ctx) =>
  asCallingKey(call, async () => {
    const acting = call.tenant !== call.keyTenant ? { actingTenant: call.tenant } : {};
    if (isLegacyId(call.keyId)) {
      const k = ctx.legacy.byId(call.keyId);
      if (!k) throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
      const usage = await ctx.db.legacyUsage.findFirst({ where: { keyId: k.id } });
      const view = legacyView(k, usage?.lastUsedAt ?? null);
      return { ...view, abilities: [...abilitiesOf(view.scopes)], ...acting, events: [] };
    }
    const row = await inspectRow(ctx, call.keyId);
    if (!row) throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
    const view = rowView(row, ctx.now(), row.rotatedFrom);
    return {
      ...view,
      abilities: [...abilitiesOf(view.scopes)],
      ...acting,
      events: (row.events ?? []).map(eventTupleView),
    };
  }),
);

/**
 * The key, its predecessor and its trail. A key whose expiry has passed gets its `expired` event
 * first (expiry.ts) and is read again so the trail shows it, whoever recorded it (another reader or
 * the sweep may have, after the first read). The second round trip is rare: gateways refuse a key
 * past its expiry, so only a call racing it gets here.
 */
async function inspectRow(ctx: Context, id: string): Promise<InspectRow | undefined> {
  const [row] = await keyForInspect(ctx.pool, id);
  if (row?.status !== "active" || !row.expiresAt || row.expiresAt.getTime() > ctx.now()) return row;
  await recordExpired(ctx, [row.id]);
  return (await keyForInspect(ctx.pool, id))[0];
}

/**
 * What `scopes` let a key call. The catalogue is fixed for the life of the process, so the answer
 * depends on the scopes alone; keys calling repeatedly hold few distinct scope lists.
 */
const abilitiesByScopes = new Lru<string, readonly string[]>(1_000);

function abilitiesOf(scopes: string[]): readonly string[] {
  const cacheKey = JSON.stringify(scopes);
  let abilities = abilitiesByScopes.get(cacheKey);
  if (!abilities) {
    abilities = Object.freeze([...new Set([...expandScopes(scopes), ...OPEN_ABILITIES])].sort());
    abilitiesByScopes.set(cacheKey, abilities);
  }
  return abilities;
}
