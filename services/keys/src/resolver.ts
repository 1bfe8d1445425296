/**
 * @module keys/resolver
 * The KeyResolver gRPC service: the gateway resolves a bearer key by the SHA-256 of its secret and
 * reports usage in batches, so `lastUsed` costs one write per key per report, not one per request.
 * Resolution order: stored keys, then the legacy credential store (GANTRY_LEGACY_KEYS); bearers
 * that are not `gk_` keys (`legacy_only`) go to the legacy store alone. Requests authenticated with a
 * legacy credential are counted from the same usage reports (`legacy_usage.requests`).
 *
 * Both RPCs run in system scope (`asSystem`): a bearer's tenant is what resolution finds out, so the
 * lookup by secret hash spans every tenant, and a usage report covers keys of many tenants. They are
 * not ability calls and carry no caller tenant; only gateways call them.
 */
import {
  asSystem,
  GantryError,
  type GrpcHandlers,
  type grpc,
  lookupService,
  toGrpcError,
  type KeyRecord,
} from "@gantry/kit";
import { KEYS_PROTO } from "@gantry/proto/paths";
import { SCHEMA, type Context } from "./context.ts";
import { recordExpired } from "./expiry.ts";
import { legacyToWire } from "./legacy.ts";
import type { ApiKeyRow } from "./records.ts";

export function toWire(row: ApiKeyRow): KeyRecord {
  return {
    id: row.id,
    tenant: row.tenant,
    name: row.name,
    prefix: row.prefix,
    status: row.status,
    scopes: row.scopes,
    collections: row.collections,
    products: row.products,
    admin: row.admin,
    sub_tenants: row.subTenants,
    expires_at_ms: row.expiresAt?.getTime() ?? 0,
    created_at_ms: row.createdAt.getTime(),
    rate_limit:
      row.rateLimit && row.rateWindowSeconds ? { limit: row.rateLimit, window_seconds: row.rateWindowSeconds } : null,
    source: "key",
    sunset_at_ms: row.rotatedTo && row.expiresAt ? row.expiresAt.getTime() : 0,
  };
}

export function resolverService(ctx: Context) {
  const { db, log, now, legacy } = ctx;
  const Service = lookupService(KEYS_PROTO, "gantry.keys.v1.KeyResolver");
  const impl: GrpcHandlers<"gantry.keys.v1.KeyResolver"> = {
    ResolveKey: (call, callback) => {
      const hash = call.request.secret_sha256;
      asSystem(async () => {
        if (!/^[0-9a-f]{64}$/.test(hash))
          throw new GantryError("invalid_request", "secret_sha256 must be 64 lower-case hex characters");
        // Bearers that are not gk_ keys can only be legacy credentials: never a database lookup.
        if (call.request.legacy_only) {
          const k = legacy.byHash(hash);
          if (!k) throw new GantryError("not_found", "no active key has this hash");
          return legacyToWire(k);
        }
        // System scope for every lookup, so Prisma may batch concurrent ones into one query.
        const row = await db.apiKey.findFirst({ where: { secretHash: hash } });
        if (row) {
          if (row.status === "active" && row.expiresAt && row.expiresAt.getTime() <= now()) {
            // Lazily complete the event trail; the sweep would get there too.
            recordExpired(ctx, [row.id]).catch((err) =>
              log.warn({ keyId: row.id, err: String(err) }, "recording expiry failed"),
            );
          }
          if (row.status !== "active" || (row.expiresAt && row.expiresAt.getTime() <= now()))
            throw new GantryError("not_found", "no active key has this hash");
          return toWire(row);
        }
        const k = legacy.byHash(hash);
        if (k) return legacyToWire(k);
        throw new GantryError("not_found", "no active key has this hash");
      }).then(
        (rec) => callback(null, rec),
        (err) => {
          if (!(err instanceof GantryError)) log.error({ err: String(err) }, "ResolveKey failed");
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
    ReportUsage: (call, callback) => {
      asSystem(async () => {
        for (const u of call.request.usage.slice(0, 10_000)) {
          if (!Number.isFinite(u.last_used_ms) || u.last_used_ms <= 0) continue;
          const at = new Date(u.last_used_ms);
          if (u.source === "legacy") {
            // Count only credentials this service knows; a report cannot invent legacy ids.
            const k = legacy.byId(u.key_id);
            if (!k) continue;
            const count = Math.max(1, Math.floor(Number(u.count) || 1));
            await ctx.pool.query(
              `INSERT INTO "${SCHEMA}"."legacy_usage" ("key_id", "tenant", "name", "requests", "first_used_at", "last_used_at") VALUES ($1, $2, $3, $4, $5, $5)
               ON CONFLICT ("key_id") DO UPDATE SET "requests" = "legacy_usage"."requests" + EXCLUDED."requests",
                 "tenant" = EXCLUDED."tenant", "name" = EXCLUDED."name",
                 "last_used_at" = GREATEST("legacy_usage"."last_used_at", EXCLUDED."last_used_at")`,
              [k.id, k.tenant, k.name, count, at],
            );
            continue;
          }
          await db.apiKey.updateMany({
            where: { id: u.key_id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: at } }] },
            data: { lastUsedAt: at },
          });
        }
      }).then(
        () => callback(null, {}),
        (err) => {
          log.warn({ err: String(err) }, "ReportUsage failed");
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
  };
  return { service: Service.service, impl };
}
