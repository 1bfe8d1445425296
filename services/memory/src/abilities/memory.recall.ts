/**
 * @module memory/abilities/memory.recall
 * `memory.recall {query, collection?, k?}` → `{collection, block, hits}`: the top k memories (same
 * ranking as memory.search) and a text block ready to inject into a model's context, delimited by
 * `<retrieved_memories …>` / `</retrieved_memories>` and marked as retrieved data, not instructions
 * (format in ../format.ts).
 */
import type { CallContext } from "@gantry/kit";
import type { MemoryDeps } from "../context.ts";
import { recallBlock } from "../format.ts";
import { searchCollection } from "./memory.search.ts";

export interface MemoryRecallInput {
  query: string;
  collection?: string;
  k: number;
}

export async function memoryRecall(input: MemoryRecallInput, call: CallContext, m: MemoryDeps) {
  const { collection, hits } = await searchCollection(m, call, input.collection, input.query, input.k);
  return { collection, block: recallBlock(collection, input.query, hits), hits };
}
