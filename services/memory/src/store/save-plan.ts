/**
 * @module memory/store/save-plan
 * The rules of memory.save, shared by every store so they behave the same: an `id` upserts (metadata
 * kept when none is given; an id living in another collection is a conflict); otherwise the nearest
 * memory at or above the dedup threshold (by the vectors' cosine, or by the request's
 * `duplicateSimilarity`) is updated (metadata merged); otherwise `newId` is added. The memory takes
 * the saving call's vertical, or keeps its own when the call names none (as guide.publish does).
 * Stores supply the three lookups; they only differ in how they answer them and how they write.
 */
import type { SaveRequest, SaveResult, StoredMemory } from "./types.ts";
import { idInOtherCollection } from "./refusals.ts";

export interface SaveLookups {
  /** The memory with this id in the request's collection. */
  byId: (id: string) => Promise<StoredMemory | undefined>;
  /** The collection holding this id elsewhere in the tenant, if any. */
  collectionOf: (id: string) => Promise<string | undefined>;
  /** The most similar memory in the request's collection. */
  nearest: () => Promise<{ memory: StoredMemory; similarity: number } | undefined>;
}

export interface SavePlan extends SaveResult {
  /** The memory being replaced, when the save updates one. */
  existing?: StoredMemory;
}

export async function planSave(req: SaveRequest, look: SaveLookups): Promise<SavePlan> {
  let existing: StoredMemory | undefined;
  let similarity: number | undefined;
  let id: string;
  let metadata: StoredMemory["metadata"];
  if (req.id) {
    id = req.id;
    existing = await look.byId(id);
    if (!existing) {
      const other = await look.collectionOf(id);
      if (other !== undefined) throw idInOtherCollection(id, other);
    }
    metadata = req.metadata ?? existing?.metadata ?? {};
  } else {
    const near = await look.nearest();
    const nearSimilarity = near && (req.duplicateSimilarity?.(near.memory.text) ?? near.similarity);
    if (near && nearSimilarity !== undefined && nearSimilarity >= req.dedupThreshold) {
      existing = near.memory;
      similarity = nearSimilarity;
      id = near.memory.id;
      metadata = { ...existing.metadata, ...req.metadata };
    } else {
      id = req.newId;
      metadata = req.metadata ?? {};
    }
  }
  const memory: StoredMemory = {
    id,
    collection: req.collection,
    text: req.text,
    metadata,
    vertical: req.vertical ?? existing?.vertical ?? null,
    model: req.model,
    dimensions: req.dimensions,
    createdAt: existing?.createdAt ?? req.now,
    updatedAt: req.now,
  };
  return {
    memory,
    existing,
    created: !existing,
    deduplicated: similarity !== undefined,
    ...(similarity !== undefined ? { similarity } : {}),
  };
}
