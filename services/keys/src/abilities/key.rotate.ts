/**
 * @module keys/abilities/key.rotate
 * Mints a successor with the same tenant, name, scopes, collections, products, flags, rate limit and
 * (absolute) expiry, returns its raw secret once, and gives the old key an expiry `overlapHours`
 * ahead (0 = now; an earlier existing expiry is kept). Until then the old key keeps working and the
 * gateway marks its responses with `Deprecation` and `Sunset` headers.
 *
 * - Caller: admin, or a key of the same tenant. A tenant key may only rotate keys no wider than
 *   itself (rotation mints a key, so containment applies as for key.issue): 403 naming what exceeds.
 * - One successor per key: the claim is a conditional update (`rotated_to IS NULL`) in the same
 *   transaction that creates the successor, so of two concurrent rotations one succeeds and the other
 *   gets 409 `already_rotated` naming the successor. Revoked or expired keys: 409 `key_revoked` /
 *   `key_expired`. Legacy keys: 400 `legacy_key`.
 * - The successor keeps the old key's absolute expiry rather than a fresh lifetime, so rotation can
 *   never extend a key's life.
 *
 * Result: `{id, key, prefix, tenant, name, scopes, created, expires, previous: {id, expires}}`.
 * Publishes `keys.key.rotated` (old id; gateways re-resolve it and see its new expiry) and
 * `keys.key.issued` (new id).
 *
 * Tenant keys act in their call's scope; admin keys on any tenant's key, in system scope (`asCaller`).
 */
import { GantryError, SUBJECTS, generateKey, hashKey, keyPrefix, newKeyId } from "@gantry/kit";
import { ability } from "../context.ts";
import { excess } from "../containment.ts";
import { asCaller, callerOf, grantOf, iso, manageableKey, statusOf, type ApiKeyRow } from "../records.ts";

export default ability("key.rotate", (input, call, ctx) =>
  asCaller(call, async () => {
    const row = await manageableKey(ctx, call, input.id, "rotated");
    const now = ctx.now();
    refuseState(row, now);
    const caller = await callerOf(ctx, call);
    if (!caller.admin) {
      const over = excess(caller, { ...grantOf(row, ctx.defaultRateLimit), tenant: row.tenant });
      if (over.length) {
        throw new GantryError(
          "forbidden",
          `The successor would be wider than the key asking for it: ${over.map((d) => d.message).join("; ")}.`,
          {
            reason:
              "A tenant key can only rotate keys within its own scopes, collections, products, flags, rate limit and expiry; ask an admin key.",
            // The excess is in the target key, not in an input field: point at the id, name the attribute.
            details: over.map((d) => ({ ...d, path: "/input/id", field: d.path.replace("/input/", "") })),
          },
        );
      }
    }

    const raw = generateKey();
    const id = newKeyId();
    const created = new Date(now);
    const overlapEnd = now + Math.round(input.overlapHours * 3_600_000);
    const oldExpires = new Date(row.expiresAt ? Math.min(row.expiresAt.getTime(), overlapEnd) : overlapEnd);

    const out = await ctx.db.$transaction(async (tx) => {
      const { count } = await tx.apiKey.updateMany({
        where: {
          id: row.id,
          status: "active",
          rotatedTo: null,
          OR: [{ expiresAt: null }, { expiresAt: { gt: created } }],
        },
        data: { rotatedTo: id, expiresAt: oldExpires },
      });
      if (count === 0) {
        // Lost a race (another rotation or a revocation committed first): say which.
        refuseState(await tx.apiKey.findFirstOrThrow({ where: { id: row.id } }), now);
        throw new GantryError("conflict", `${row.id} changed while it was being rotated; list it and retry.`);
      }
      const successor = await tx.apiKey.create({
        data: {
          id,
          tenant: row.tenant,
          name: row.name,
          prefix: keyPrefix(raw),
          secretHash: hashKey(raw),
          scopes: row.scopes,
          collections: row.collections,
          products: row.products,
          admin: row.admin,
          subTenants: row.subTenants,
          rateLimit: row.rateLimit,
          rateWindowSeconds: row.rateWindowSeconds,
          expiresAt: row.expiresAt,
          createdAt: created,
          origin: "rotation",
          events: {
            create: {
              kind: "issued",
              reason: `rotation of ${row.id}`,
              actorKeyId: call.keyId,
              requestId: call.requestId,
              at: created,
            },
          },
        },
        include: { events: true },
      });
      const rotated = await tx.keyEvent.create({
        data: {
          keyId: row.id,
          kind: "rotated",
          reason: `successor ${id}; this key works until ${oldExpires.toISOString()}`,
          actorKeyId: call.keyId,
          requestId: call.requestId,
          at: created,
        },
      });
      const notices = [
        await ctx.notices.enqueue(tx, SUBJECTS.keyRotated, row, String(rotated.id)),
        await ctx.notices.enqueue(tx, SUBJECTS.keyIssued, successor, String(successor.events[0]?.id ?? id)),
      ];
      return { successor, notices };
    });
    await ctx.notices.flush(out.notices);
    ctx.log.info(
      {
        requestId: call.requestId,
        keyId: row.id,
        successorId: id,
        tenant: row.tenant,
        actorKeyId: call.keyId,
        oldExpires: oldExpires.toISOString(),
      },
      "key rotated",
    );
    const s = out.successor;
    return {
      id,
      key: raw,
      prefix: s.prefix,
      tenant: s.tenant,
      name: s.name,
      scopes: s.scopes,
      collections: s.collections,
      products: s.products,
      subTenants: s.subTenants,
      admin: s.admin,
      rateLimit: s.rateLimit && s.rateWindowSeconds ? { limit: s.rateLimit, windowSeconds: s.rateWindowSeconds } : null,
      created: s.createdAt.toISOString(),
      expires: iso(s.expiresAt),
      previous: { id: row.id, expires: oldExpires.toISOString() },
    };
  }),
);

function refuseState(row: ApiKeyRow, now: number): void {
  if (row.rotatedTo) {
    throw new GantryError("conflict", `${row.id} was already rotated; its successor is ${row.rotatedTo}.`, {
      reason: "A key is rotated once; rotate the successor to roll again.",
      details: [
        {
          path: "/input/id",
          message: `already rotated to ${row.rotatedTo}`,
          code: "already_rotated",
          successorId: row.rotatedTo,
        },
      ],
    });
  }
  const status = statusOf(row, now);
  if (status !== "active") {
    throw new GantryError("conflict", `${row.id} is ${status}; only active keys can be rotated.`, {
      reason: "Issue a new key with key.issue instead.",
      details: [
        { path: "/input/id", message: `key is ${status}`, code: status === "revoked" ? "key_revoked" : "key_expired" },
      ],
    });
  }
}
