/**
 * @module memory/abilities/memory.recall
 * `memory.recall {query, collection?, k?, vertical?}` → `{collection, model, matching, block, hits}`: the
 * top k memories (same ranking and `vertical` filter as memory.search, and the same `model` /
 * `matching` report) and a text
 * block ready to inject into a model's context, delimited by `<retrieved_memories …>` /
 * `</retrieved_memories>` and marked as retrieved data, not instructions (format in ../format.ts).
 */
import { ability } from "../context.ts";
import { recallBlock } from "../format.ts";
import { searchCollection } from "../search.ts";

export default ability("memory.recall", async (input, call, ctx) => {
  const { collection, hits } = await searchCollection(
    ctx,
    call,
    input.collection,
    input.query,
    input.k,
    undefined,
    input.vertical,
  );
  return {
    collection,
    model: ctx.embedder.model,
    matching: ctx.embedder.matching,
    block: recallBlock(collection, input.query, hits),
    hits,
  };
});
