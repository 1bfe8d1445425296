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
import { GantryError } from "@gantry/kit";
import { OPEN_ABILITIES, expandScopes } from "@gantry/proto/catalogue";
import { ability } from "../context.ts";
import { recordExpired } from "../expiry.ts";
import { isLegacyId } from "../legacy.ts";
import { asCallingKey, eventsOf, legacyView, predecessorsOf, rowView } from "../records.ts";

export default ability("key.inspect", (_input, call, ctx) =>
  asCallingKey(call, async () => {
    const acting = call.tenant !== call.keyTenant ? { actingTenant: call.tenant } : {};
    if (isLegacyId(call.keyId)) {
      const k = ctx.legacy.byId(call.keyId);
      if (!k) throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
      const usage = await ctx.db.legacyUsage.findFirst({ where: { keyId: k.id } });
      const view = legacyView(k, usage?.lastUsedAt ?? null);
      return { ...view, abilities: abilitiesOf(view.scopes), ...acting, events: [] };
    }
    const row = await ctx.db.apiKey.findFirst({ where: { id: call.keyId } });
    if (!row) throw new GantryError("unauthorized", "The API key is not recognised, revoked or expired.");
    await recordExpired(ctx, [row.id]);
    const [events, from] = await Promise.all([eventsOf(ctx, [row.id]), predecessorsOf(ctx, [row.id])]);
    const view = rowView(row, ctx.now(), from.get(row.id) ?? null);
    return { ...view, abilities: abilitiesOf(view.scopes), ...acting, events: events.get(row.id) ?? [] };
  }),
);

function abilitiesOf(scopes: string[]): string[] {
  return [...new Set([...expandScopes(scopes), ...OPEN_ABILITIES])].sort();
}
