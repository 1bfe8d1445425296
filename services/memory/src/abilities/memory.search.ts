/**
 * @module memory/abilities/memory.search
 * `memory.search {query, collection?, limit?, filter?}` → `{collection, model, halfLifeDays, hits:
 * [{id, text, score, similarity, metadata, created, updated}]}`.
 *
 * The query is embedded server-side (768 dimensions); hits are ranked by
 * `score = similarity × 0.5^(age / half-life)` (cosine similarity; age from the memory's last save;
 * half-life `MEMORY_HALF_LIFE_DAYS`, default 30 days), after the metadata `filter`, best first;
 * memories with nothing in common with the query (cosine ≤ 0) are left out. A collection whose
 * vectors come from another model than the configured one is refused (409) rather than compared
 * across models.
 */
import type { CallContext } from "@gantry/kit";
import { resolveCollection } from "../collections.ts";
import { halfLifeMs, type MemoryDeps } from "../context.ts";
import { parseFilter } from "../filter.ts";
import { hitOut, type HitOut } from "../format.ts";
import { mixedModels } from "../store/postgres.ts";

export interface MemorySearchInput {
  query: string;
  collection?: string;
  limit: number;
  filter?: Record<string, unknown>;
}

export async function searchCollection(m: MemoryDeps, call: CallContext, collectionIn: string | undefined, query: string, limit: number, filter?: unknown): Promise<{ collection: string; hits: HitOut[] }> {
  const collection = resolveCollection(call, collectionIn);
  const node = parseFilter(filter);
  const current = await m.store.partitionModel(call.tenant, collection);
  if (current && current.model !== m.embedder.model) throw mixedModels(collection, current.model, m.embedder.model);
  if (!current) return { collection, hits: [] };
  const [vector] = await m.embedder.embed([query], "query");
  const hits = await m.store.search(call.tenant, collection, vector, { limit, filter: node, now: m.now(), halfLifeMs: halfLifeMs(m.config) });
  return { collection, hits: hits.map(hitOut) };
}

export async function memorySearch(input: MemorySearchInput, call: CallContext, m: MemoryDeps) {
  const { collection, hits } = await searchCollection(m, call, input.collection, input.query, input.limit, input.filter);
  return { collection, model: m.embedder.model, halfLifeDays: m.config.MEMORY_HALF_LIFE_DAYS, hits };
}
