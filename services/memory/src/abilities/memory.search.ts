/**
 * @module memory/abilities/memory.search
 * `memory.search {query, collection?, limit?, filter?, vertical?}` → `{collection, model, matching,
 * halfLifeDays, hits: [{id, text, score, similarity, metadata, vertical, created, updated}]}`.
 *
 * The query is embedded server-side (768 dimensions) by the configured embedder; `matching` says
 * whether that matches by meaning (`semantic`: use-lite-512-v1 by default, or an OpenAI-compatible /
 * Ollama model) or by shared words only (`lexical`: lexical-hash-v1). Hits are ranked by
 * `score = similarity × 0.5^(age / half-life)` (cosine similarity; age from the memory's last save;
 * half-life `MEMORY_HALF_LIFE_DAYS`, default 30 days), after the metadata `filter` and the `vertical`
 * (only memories saved with that context.verticalId, as decision.list and payment.list filter), best first;
 * memories with nothing in common with the query (cosine ≤ 0) are left out. A collection whose
 * vectors come from another model than the configured one is refused (409) rather than compared
 * across models (the search itself: ../search.ts).
 */
import { ability } from "../context.ts";
import { searchCollection } from "../search.ts";

export default ability("memory.search", async (input, call, ctx) => {
  const { collection, hits } = await searchCollection(
    ctx,
    call,
    input.collection,
    input.query,
    input.limit,
    input.filter,
    input.vertical,
  );
  return {
    collection,
    model: ctx.embedder.model,
    matching: ctx.embedder.matching,
    halfLifeDays: ctx.config.MEMORY_HALF_LIFE_DAYS,
    hits,
  };
});
