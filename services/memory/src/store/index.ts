/**
 * @module memory/store
 * Picks the vector store from configuration (`MEMORY_STORE`). The Weaviate store is imported only
 * when chosen: its client holds ≈ 35 MiB once loaded, which the default Postgres store never needs.
 */
import type pg from "pg";
import { ConfigError, type Logger, type Nats } from "@gantry/kit";
import type { MemoryConfig } from "../config.ts";
import { PostgresStore } from "./postgres.ts";
import type { VectorStore } from "./types.ts";

export type { VectorStore } from "./types.ts";

/** The variables the stores read (declared in ../config.ts). */
export type StoreConfig = Pick<
  MemoryConfig,
  | "MEMORY_STORE"
  | "MEMORY_CACHE_MB"
  | "MEMORY_CACHE_CHECK_MS"
  | "WEAVIATE_URL"
  | "WEAVIATE_GRPC_PORT"
  | "WEAVIATE_API_KEY"
  | "WEAVIATE_PREFIX"
  | "WEAVIATE_INDEX"
>;

export async function createStore(
  c: StoreConfig,
  deps: { pool: pg.Pool; nats?: Nats; log: Logger },
): Promise<VectorStore> {
  if (c.MEMORY_STORE === "weaviate") {
    if (!c.WEAVIATE_URL)
      throw new ConfigError("memory: MEMORY_STORE=weaviate needs WEAVIATE_URL (e.g. http://127.0.0.1:8080)");
    const { WeaviateStore } = await import("./weaviate.ts");
    return new WeaviateStore({
      url: c.WEAVIATE_URL,
      grpcPort: c.WEAVIATE_GRPC_PORT,
      apiKey: c.WEAVIATE_API_KEY,
      prefix: c.WEAVIATE_PREFIX,
      index: c.WEAVIATE_INDEX,
      log: deps.log,
    });
  }
  return new PostgresStore({
    pool: deps.pool,
    log: deps.log,
    nats: deps.nats,
    cacheBytes: c.MEMORY_CACHE_MB * 1024 * 1024,
    checkIntervalMs: c.MEMORY_CACHE_CHECK_MS,
  });
}
