/**
 * @module keys/abilities/key.revoke
 * Revokes a key of the caller's tenant (admin keys: any key). Another tenant's key is "not found".
 * Revoking the calling key needs `confirmSelf: true`, else 400 with `details[0].code` =
 * `confirm_self_required`. The reason goes to the key's event trail. Revoking an already revoked
 * key changes nothing and answers the same shape with `alreadyRevoked: true`.
 *
 * Effect: the key is refused by the keys service at once, and a `keys.key.revoked` notice makes
 * every gateway drop it from its cache at once (measured under 1 s in the tests; typically a few
 * ms). Result: `{id, status: "revoked", revoked, effectiveBy, notified}`: `effectiveBy` is the
 * guarantee (revocation time + the 30 s auth cache bound of spec §8), the latest moment any gateway
 * could still accept the key even if a notice were lost; `notified` says the notice was published.
 *
 * Tenant keys act in their call's scope; admin keys on any tenant's key, in system scope (`asCaller`).
 */
import { GantryError, SUBJECTS } from "@gantry/kit";
import { ability } from "../context.ts";
import { recordExpired } from "../expiry.ts";
import { asCaller, manageableKey } from "../records.ts";

export default ability("key.revoke", (input, call, ctx) =>
  asCaller(call, async () => {
    const row = await manageableKey(ctx, call, input.id, "revoked");
    if (row.id === call.keyId && input.confirmSelf !== true) {
      throw new GantryError(
        "invalid_request",
        "This would revoke the key making this call; send confirmSelf: true to do that.",
        {
          reason: "Revoking the calling key ends this key's access immediately; confirm it explicitly.",
          details: [
            {
              path: "/input/confirmSelf",
              message: "confirmSelf must be true to revoke the calling key",
              code: "confirm_self_required",
            },
          ],
        },
      );
    }
    // An expiry that passed before the revocation belongs in the trail first.
    await recordExpired(ctx, [row.id]);
    const now = new Date(ctx.now());
    const result = await ctx.db.$transaction(async (tx) => {
      const { count } = await tx.apiKey.updateMany({
        where: { id: row.id, status: "active" },
        data: { status: "revoked", revokedAt: now },
      });
      if (count === 0) {
        // Announced again for an already revoked key too: harmless (a new id), and it tells a gateway
        // that cached the key before a restart of its subscription.
        const notice = await ctx.notices.enqueue(tx, SUBJECTS.keyRevoked, row, `again-${now.getTime()}`);
        return { already: await tx.apiKey.findFirstOrThrow({ where: { id: row.id } }), notice };
      }
      const ev = await tx.keyEvent.create({
        data: {
          keyId: row.id,
          kind: "revoked",
          reason: input.reason ?? null,
          actorKeyId: call.keyId,
          requestId: call.requestId,
          at: now,
        },
      });
      return { already: undefined, notice: await ctx.notices.enqueue(tx, SUBJECTS.keyRevoked, row, String(ev.id)) };
    });
    const revokedAt = result.already?.revokedAt ?? now;
    const notified = await ctx.notices.flush([result.notice]);
    if (!result.already)
      ctx.log.info(
        { requestId: call.requestId, keyId: row.id, tenant: row.tenant, actorKeyId: call.keyId, notified },
        "key revoked",
      );
    return {
      id: row.id,
      status: "revoked" as const,
      revoked: revokedAt.toISOString(),
      effectiveBy: new Date(revokedAt.getTime() + ctx.authCacheMs).toISOString(),
      notified,
      ...(result.already ? { alreadyRevoked: true } : {}),
    };
  }),
);
