/**
 * @module keys/resolver
 * The KeyResolver gRPC service: the gateway resolves a bearer key by the SHA-256 of its secret and
 * reports usage in batches, so `lastUsed` costs one write per key per report, not one per request.
 */
import { GantryError, grpc, lookupService, toGrpcError, type KeyRecord, type Logger } from "@gantry/kit";
import { KEYS_PROTO } from "@gantry/proto/paths";
import type { PrismaClient } from "./db.ts";

type ApiKeyRow = Awaited<ReturnType<PrismaClient["apiKey"]["findUnique"]>>;

export function toWire(row: NonNullable<ApiKeyRow>): KeyRecord {
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
    rate_limit: row.rateLimit && row.rateWindowSeconds ? { limit: row.rateLimit, window_seconds: row.rateWindowSeconds } : null,
    source: "key",
    sunset_at_ms: row.rotatedTo && row.expiresAt ? row.expiresAt.getTime() : 0,
  };
}

export function resolverService(db: PrismaClient, log: Logger, now: () => number = Date.now) {
  const Service = lookupService(KEYS_PROTO, "gantry.keys.v1.KeyResolver");
  const impl: grpc.UntypedServiceImplementation = {
    ResolveKey: (call: grpc.ServerUnaryCall<{ secret_sha256: string }, unknown>, callback: grpc.sendUnaryData<KeyRecord>) => {
      const hash = call.request.secret_sha256;
      (async () => {
        if (!/^[0-9a-f]{64}$/.test(hash)) throw new GantryError("invalid_request", "secret_sha256 must be 64 lower-case hex characters");
        const row = await db.apiKey.findUnique({ where: { secretHash: hash } });
        if (!row || row.status !== "active" || (row.expiresAt && row.expiresAt.getTime() <= now())) {
          throw new GantryError("not_found", "no active key has this hash");
        }
        return toWire(row);
      })().then(
        (rec) => callback(null, rec),
        (err) => {
          if (!(err instanceof GantryError)) log.error({ err: String(err) }, "ResolveKey failed");
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
    ReportUsage: (call: grpc.ServerUnaryCall<{ usage: Array<{ key_id: string; last_used_ms: number; source: string }> }, unknown>, callback: grpc.sendUnaryData<object>) => {
      (async () => {
        for (const u of call.request.usage.filter((x) => x.source !== "legacy").slice(0, 10_000)) {
          await db.apiKey.updateMany({
            where: { id: u.key_id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(u.last_used_ms) } }] },
            data: { lastUsedAt: new Date(u.last_used_ms) },
          });
        }
      })().then(
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
