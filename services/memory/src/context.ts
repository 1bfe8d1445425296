/**
 * @module memory/context
 * What the memory service's handlers share, assembled once in main.ts.
 */
import type pg from "pg";
import type { Clock, Logger, Nats } from "@gantry/kit";
import type { MemoryConfig } from "./config.ts";
import type { PrismaClient } from "./db.ts";
import type { Embedder } from "./embed/types.ts";
import type { Outbox } from "./outbox.ts";
import type { VectorStore } from "./store/types.ts";

export interface MemoryDeps {
  config: MemoryConfig;
  log: Logger;
  db: PrismaClient;
  pool: pg.Pool;
  nats: Nats;
  store: VectorStore;
  embedder: Embedder;
  outbox: Outbox;
  /** Epoch ms; shifted in tests through the kit's test clock. */
  now: Clock;
}

export const DAY_MS = 86_400_000;

/** The configured recency half-life in milliseconds (0 = no decay). */
export function halfLifeMs(config: MemoryConfig): number {
  return config.MEMORY_HALF_LIFE_DAYS * DAY_MS;
}
