/**
 * @module keys/context
 * What the key.* handlers and the resolver share, assembled once in main.ts: the Prisma client, the
 * raw pool (for the few statements Prisma cannot express), the clock (test-shiftable, see
 * kit/src/clock.ts), the legacy credential store, NATS notices and the deployment's default rate
 * limit (the limit a key without its own one gets at the gateway, needed for containment).
 */
import type pg from "pg";
import type { Clock, Logger } from "@gantry/kit";
import type { PrismaClient } from "./db.ts";
import type { LegacyStore } from "./legacy.ts";
import type { Notices } from "./notices.ts";

export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export interface KeysContext {
  db: PrismaClient;
  pool: pg.Pool;
  now: Clock;
  legacy: LegacyStore;
  notices: Notices;
  log: Logger;
  /** What the gateway applies to keys without their own limit (RATE_LIMIT_DEFAULT / RATE_LIMIT_WINDOW_SECONDS). */
  defaultRateLimit: RateLimitPolicy;
  /** Upper bound of the gateways' key cache (spec §8: 30 s); a revocation is guaranteed effective after it. */
  authCacheMs: number;
}

/** Postgres schema of the keys service (raw SQL names tables with it). */
export const SCHEMA = "keys";
