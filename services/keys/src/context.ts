/**
 * @module keys/context
 * What every key.* handler and the resolver receive as `ctx`, built once by `init` in service.ts:
 * the Prisma client and the tenant-scoped pool (for the few statements Prisma cannot express),
 * the clock (test-shiftable, see kit/src/clock.ts), the legacy credential store, NATS notices, the
 * deployment's default rate limit (the limit a key without its own one gets at the gateway, needed
 * for containment) and the background work to stop on shutdown.
 *
 * Handlers are declared with `ability` from here: `export default ability("key.list", async
 * (input, call, ctx) => …)` in `abilities/<id>.ts`.
 */
import type pg from "pg";
import { abilityOf, type Clock, type Logger } from "@gantry/kit";
import type { PrismaClient } from "./db.ts";
import type { LegacyStore } from "./legacy.ts";
import type { Notices } from "./notices.ts";

export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export interface Context {
  db: PrismaClient;
  /** The kit's TenantPool: every connection carries the scope of the code that asked for it. */
  pool: pg.Pool;
  now: Clock;
  legacy: LegacyStore;
  notices: Notices;
  log: Logger;
  /** What the gateway applies to keys without their own limit (RATE_LIMIT_DEFAULT / RATE_LIMIT_WINDOW_SECONDS). */
  defaultRateLimit: RateLimitPolicy;
  /** Upper bound of the gateways' key cache (spec §8: 30 s); a revocation is guaranteed effective after it. */
  authCacheMs: number;
  /** The audit consumer and the expiry sweep started by init; stopped by the close hook. */
  background: { stop: () => Promise<void> };
}

export const ability = abilityOf<Context>();

/** Postgres schema of the keys service (raw SQL names tables with it). */
export const SCHEMA = "keys";
