/**
 * @module trust/context
 * What every handler of the service (and the PermitGate RPCs) receives as `ctx`, built once by
 * `init` in service.ts: the Prisma client over the kit's tenant-scoped pool, the configuration, the
 * signing keys, the memory service's client, the logger and the clock (test-shiftable, kit/src/clock.ts).
 */
import { abilityOf, type Clock, type Logger } from "@gantry/kit";
import type pg from "pg";
import type { TrustConfig } from "./config.ts";
import type { PrismaClient } from "./db.ts";
import type { MemoryClient } from "./memory.ts";
import type { LogAppender } from "./log-append.ts";
import type { SigningKeys } from "./signing.ts";

export interface Context {
  db: PrismaClient;
  /** The same tenant-scoped pool, for the hot-path statements (prepared, or batched appends). */
  pool: pg.Pool;
  config: TrustConfig;
  keys: SigningKeys;
  /** The memory service (decision.list, lesson.record), called for the caller over gRPC. */
  memory: MemoryClient;
  /** Appends receipts to their tenant's log in batches (log-append.ts). */
  appender: LogAppender;
  log: Logger;
  now: Clock;
}

/** `ability(id, run)`: declares the handler of one ability (one file per ability under abilities/). */
export const ability = abilityOf<Context>();
