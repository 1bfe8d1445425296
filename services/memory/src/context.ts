/**
 * @module memory/context
 * What every memory handler receives as `ctx` (built once by `init` in service.ts), and the
 * `ability(id, run)` declarer of the handlers in abilities/.
 */
import type pg from "pg";
import { abilityOf, type Clock, type Logger, type Nats, type OutboxRelay } from "@gantry/kit";
import type { MemoryConfig } from "./config.ts";
import type { PrismaClient } from "./db.ts";
import type { Embedder } from "./embed/types.ts";
import type { VectorStore } from "./store/types.ts";

export interface Context {
  config: MemoryConfig;
  log: Logger;
  /** Over the kit's tenant-scoped pool: a call sees only its tenant's rows (row-level security). */
  db: PrismaClient;
  /** The kit's `TenantPool`: connections carry the scope of the code that asks for them. */
  pool: pg.Pool;
  nats: Nats;
  store: VectorStore;
  embedder: Embedder;
  outbox: OutboxRelay;
  /** This replica's share of the lessons consumer (lessons.ts), stopped on shutdown. */
  lessons: { stop: () => Promise<void> };
  /** Epoch ms; shifted in tests through the kit's test clock. */
  now: Clock;
}

export const ability = abilityOf<Context>();

export const DAY_MS = 86_400_000;

/** The configured recency half-life in milliseconds (0 = no decay). */
export function halfLifeMs(config: Pick<MemoryConfig, "MEMORY_HALF_LIFE_DAYS">): number {
  return config.MEMORY_HALF_LIFE_DAYS * DAY_MS;
}
