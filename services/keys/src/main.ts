/**
 * @module keys/main
 * The keys service: key resolution for the gateway (stored keys and the legacy credential store),
 * the bootstrap admin key, the audit log writer, the key.* abilities, key lifecycle notices on
 * NATS, and the periodic sweep that records expiries in the event trail.
 */
import { createClock, main, type BaseConfig } from "@gantry/kit";
import { createDb, type PrismaClient } from "./db.ts";
import { ensureAdminKey } from "./bootstrap.ts";
import { resolverService } from "./resolver.ts";
import { startAuditConsumer } from "./audit-consumer.ts";
import { LEGACY_ENV, LegacyStore } from "./legacy.ts";
import { declareKeysStream, natsNotices } from "./notices.ts";
import { startExpirySweep } from "./expiry.ts";
import type { KeysContext } from "./context.ts";
import { keyInspect } from "./abilities/key.inspect.ts";
import { keyIssue } from "./abilities/key.issue.ts";
import { keyList } from "./abilities/key.list.ts";
import { keyRevoke } from "./abilities/key.revoke.ts";
import { keyRotate } from "./abilities/key.rotate.ts";

interface KeysConfig extends BaseConfig {
  GANTRY_ADMIN_KEY?: string;
  GANTRY_LEGACY_KEYS?: string;
  RATE_LIMIT_DEFAULT: number;
  RATE_LIMIT_WINDOW_SECONDS: number;
  KEY_EXPIRY_SWEEP_SECONDS: number;
}

let db: PrismaClient;
let ctx: KeysContext;
let audit: { stop: () => Promise<void> } | undefined;
let sweep: { stop: () => void } | undefined;

main<KeysConfig>({
  name: "keys",
  env: {
    GANTRY_ADMIN_KEY: { type: "string", description: "admin key to register at start (gk_…); generated and printed once when unset" },
    [LEGACY_ENV]: { type: "string", description: "legacy credential store: JSON array of {tenant, secret, scopes, …} or tenant:secret:scope1|scope2;… (services/keys/README.md)" },
    // Same names and defaults as the gateway's: a tenant key without its own limit is bounded by this one when it issues keys.
    RATE_LIMIT_DEFAULT: { type: "integer", minimum: 1, default: 600, description: "requests per window for keys without their own limit (as the gateway)" },
    RATE_LIMIT_WINDOW_SECONDS: { type: "integer", minimum: 1, maximum: 86400, default: 60, description: "length of the default rate-limit window (as the gateway)" },
    KEY_EXPIRY_SWEEP_SECONDS: { type: "integer", minimum: 1, maximum: 86400, default: 60, description: "how often expired keys are recorded in their event trail and announced on keys.key.expired" },
  },
  init: async (deps) => {
    // Both fail fast: a bad legacy entry or a test clock outside NODE_ENV=test stop the start.
    const legacy = LegacyStore.fromEnv(deps.config.GANTRY_LEGACY_KEYS);
    const now = createClock();
    db = createDb(deps);
    await declareKeysStream(deps.nats);
    ctx = {
      db,
      pool: deps.pool!,
      now,
      legacy,
      notices: natsNotices(deps.nats, deps.log),
      log: deps.log,
      defaultRateLimit: { limit: deps.config.RATE_LIMIT_DEFAULT, windowSeconds: deps.config.RATE_LIMIT_WINDOW_SECONDS },
      authCacheMs: 30_000,
    };
    if (legacy.size) deps.log.info({ legacyKeys: legacy.size }, "legacy credential store loaded");
    await ensureAdminKey(db, deps.pool!, deps.config.GANTRY_ADMIN_KEY, deps.log);
    audit = startAuditConsumer(deps.nats, deps.pool!, deps.log);
    sweep = startExpirySweep(ctx, deps.config.KEY_EXPIRY_SWEEP_SECONDS * 1000);
  },
  abilities: () => ({
    "key.inspect": (input, call) => keyInspect(input, call, ctx),
    "key.issue": (input, call) => keyIssue(input, call, ctx),
    "key.list": (input, call) => keyList(input, call, ctx),
    "key.revoke": (input, call) => keyRevoke(input, call, ctx),
    "key.rotate": (input, call) => keyRotate(input, call, ctx),
  }),
  grpcServices: () => [resolverService(ctx)],
  close: async () => {
    sweep?.stop();
    await audit?.stop();
    await db?.$disconnect();
  },
});
