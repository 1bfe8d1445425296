/**
 * @module memory/abilities/memory.save
 * `memory.save {text, collection?, metadata?, id?}` → `{id, collection, action, deduplicated,
 * similarity?, created, updated, vertical, model}`.
 *
 * - `id` given: upsert that memory (text replaced; metadata replaced when given, kept otherwise);
 *   an id the tenant already uses in another collection is 409.
 * - no `id`: a memory of the same tenant + collection whose similarity with the new text is ≥ 0.97
 *   (`MEMORY_DEDUP_THRESHOLD`) is updated instead of a second one being added: newest text, metadata
 *   merged (new keys win), saved time refreshed; the result says `deduplicated: true` with the
 *   similarity. Otherwise a new memory `mem_…` is added. The similarity is the vectors' cosine with
 *   the lexical embedder; with a semantic one (the default) the nearest memory by the vectors must
 *   also be near-identical in wording (lexical-hash-v1 cosine, the reported similarity), because a
 *   semantic model scores "Invoice INV-1001 is paid" and "… INV-1002 …" 0.995.
 * - the memory keeps the call's context.verticalId as its `vertical`; an update by a call that names
 *   none keeps the vertical it had (memory.search / memory.recall filter by it).
 * - `action` is `created`, `updated` (id upsert of an existing memory) or `deduplicated`; `created`
 *   and `updated` are the memory's first and latest save times (ISO 8601).
 */
import { randomBase62 } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import { resolveCollection } from "../collections.ts";
import { ability } from "../context.ts";
import { wordingSimilarity } from "../embed/lexical.ts";

function newMemoryId(): string {
  return `mem_${randomBase62(22)}`;
}

export default ability("memory.save", async (input, call, ctx) => {
  const collection = resolveCollection(call, input.collection);
  const [vector] = await ctx.embedder.embed([input.text], "document");
  const r = await ctx.store.save({
    tenant: call.tenant,
    collection,
    id: input.id,
    newId: newMemoryId(),
    text: input.text,
    metadata: input.metadata,
    vertical: call.verticalId,
    vector,
    model: ctx.embedder.model,
    dimensions: ctx.embedder.dimensions,
    now: ctx.now(),
    dedupThreshold: ctx.config.MEMORY_DEDUP_THRESHOLD,
    // A semantic model's vectors find the candidate; only near-identical wording makes it a duplicate.
    ...(ctx.embedder.matching === "semantic"
      ? { duplicateSimilarity: (existing: string) => wordingSimilarity(input.text, existing) }
      : {}),
  });
  const saved: OutputOf<"memory.save"> = {
    id: r.memory.id,
    collection,
    action: r.created ? "created" : r.deduplicated ? "deduplicated" : "updated",
    deduplicated: r.deduplicated,
    ...(r.similarity !== undefined ? { similarity: Math.round(r.similarity * 1e6) / 1e6 } : {}),
    created: new Date(r.memory.createdAt).toISOString(),
    updated: new Date(r.memory.updatedAt).toISOString(),
    vertical: r.memory.vertical,
    model: r.memory.model,
  };
  return saved;
});
