/**
 * @module keys/service
 * The keys service: key resolution for the gateway (stored keys and the legacy credential store),
 * the bootstrap admin key, the audit log writer and its retention, the key.* abilities (one file each in abilities/),
 * key lifecycle notices on NATS, and the periodic sweep that records expiries in the event trail.
 *
 * Tenant scope: the kit runs each key.* call in the caller's tenant scope (row-level security on
 * `api_keys`, `legacy_usage`, `audit_records`); calls by admin keys, which are root keys, run in
 * system scope (records.ts `asCaller`). `init` runs in system scope, and so do the bootstrap, the
 * audit consumer and the expiry sweep it starts; the KeyResolver RPCs (lookups by secret hash across
 * tenants) wrap themselves in `asSystem`.
 */
import { createClock, defineEnv, defineService, prismaClient, RATE_LIMIT_ENV } from "@gantry/kit";
import { startAuditConsumer } from "./audit-consumer.ts";
import { startAuditRetention } from "./audit-retention.ts";
import { ensureAdminKey } from "./bootstrap.ts";
import { type Context, SCHEMA } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { startExpirySweep } from "./expiry.ts";
import { LegacyStore } from "./legacy.ts";
import { declareKeysStream, outboxNotices } from "./notices.ts";
import { resolverService } from "./resolver.ts";

export const KEYS_ENV = defineEnv({
  // A tenant key without its own limit is bounded by the deployment default when it issues keys.
  ...RATE_LIMIT_ENV,
  GANTRY_ADMIN_KEY: {
    type: "string",
    description: "admin key to register at start (gk_…); generated and printed once when unset",
  },
  GANTRY_LEGACY_KEYS: {
    type: "string",
    description:
      "legacy credential store: JSON array of {tenant, secret, scopes, …} or tenant:secret:scope1|scope2;… (services/keys/README.md)",
  },
  KEY_EXPIRY_SWEEP_SECONDS: {
    type: "integer",
    minimum: 1,
    maximum: 86400,
    default: 60,
    description: "how often expired keys are recorded in their event trail and announced on keys.key.expired",
  },
  AUDIT_RETENTION_DAYS: {
    type: "integer",
    minimum: 1,
    maximum: 36500,
    default: 365,
    description: "days an audit record is kept; older ones are deleted hourly, oldest first (src/audit-retention.ts)",
  },
});

export default defineService({
  name: "keys",
  env: KEYS_ENV,
  init: async (deps): Promise<Context> => {
    // Both fail fast: a bad legacy entry or a test clock outside NODE_ENV=test stop the start.
    const legacy = LegacyStore.fromEnv(deps.config.GANTRY_LEGACY_KEYS);
    const now = createClock();
    const pool = deps.pool;
    if (!pool) throw new Error("keys service started without a database (DATABASE_URL)");
    const db = prismaClient(deps, PrismaClient);
    await declareKeysStream(deps.nats);
    if (legacy.size) deps.log.info({ legacyKeys: legacy.size }, "legacy credential store loaded");
    // System scope (init): the bootstrap key belongs to tenant `platform`.
    await ensureAdminKey(db, pool, deps.config.GANTRY_ADMIN_KEY, deps.log);
    const ctx: Context = {
      db,
      pool,
      now,
      legacy,
      notices: outboxNotices(pool, SCHEMA, deps.nats, deps.log),
      log: deps.log,
      defaultRateLimit: { limit: deps.config.RATE_LIMIT_DEFAULT, windowSeconds: deps.config.RATE_LIMIT_WINDOW_SECONDS },
      authCacheMs: 30_000,
      background: { stop: async () => {} },
    };
    // All three write rows of every tenant; each runs its work in system scope (see their modules).
    const audit = startAuditConsumer(deps.nats, pool, deps.log);
    const sweep = startExpirySweep(ctx, deps.config.KEY_EXPIRY_SWEEP_SECONDS * 1000);
    const retention = startAuditRetention(pool, { days: deps.config.AUDIT_RETENTION_DAYS, now, log: deps.log });
    ctx.background = {
      stop: async () => {
        sweep.stop();
        await retention.stop();
        await audit.stop();
        await ctx.notices.stop();
      },
    };
    return ctx;
  },
  grpcServices: (ctx) => [resolverService(ctx)],
  close: async (ctx) => {
    await ctx.background.stop();
    await ctx.db.$disconnect();
  },
});
