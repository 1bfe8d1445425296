/**
 * @module memory/store/types
 * The vector store contract. Every store holds memories per (tenant, collection) partition and
 * answers the same questions with the same semantics, proven by the shared behavioural suite
 * (`store.suite.ts`) that runs against each of them:
 *
 *  - `search` ranks by `score = similarity × 0.5^(age / halfLife)` where similarity is the cosine of
 *    unit vectors and age counts from the memory's last save (`updatedAt`); hits with similarity ≤ 0
 *    (nothing in common) are never returned; the filter (and the vertical) is applied before ranking; ties break by
 *    newer `updatedAt`, then id.
 *  - `save` is atomic per partition: with `id` it upserts that memory; without, a memory whose
 *    cosine with the new vector is ≥ `dedupThreshold` is updated (newest text, metadata merged, new
 *    vector, `updatedAt` now) instead of a second one being added.
 *  - a partition holds vectors of one model only; writing another model's vector is `conflict`.
 *  - nothing crosses tenants: every method takes the tenant and touches only its partition.
 */
import type { FilterNode, Metadata } from "../filter.ts";

export interface StoredMemory {
  id: string;
  collection: string;
  text: string;
  metadata: Metadata;
  /** The vertical (context.verticalId) of the latest save that named one; null when none did. */
  vertical: string | null;
  model: string;
  dimensions: number;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
}

export interface Hit extends StoredMemory {
  similarity: number;
  score: number;
}

export interface SearchOptions {
  limit: number;
  filter?: FilterNode;
  /** Only memories of this vertical. */
  vertical?: string;
  /** Epoch ms the ages are measured at. */
  now: number;
  /** 0 or less disables recency decay. */
  halfLifeMs: number;
}

export interface SaveRequest {
  tenant: string;
  collection: string;
  /** Upsert this id; when absent a near-duplicate may be updated, else `newId` is added. */
  id?: string;
  newId: string;
  text: string;
  /** Replaces the metadata on an id upsert (kept when undefined); merged into a near-duplicate's. */
  metadata?: Metadata;
  /** The saving call's context.verticalId; when absent, an updated memory keeps its vertical. */
  vertical?: string;
  vector: Float32Array;
  model: string;
  dimensions: number;
  now: number;
  dedupThreshold: number;
  /**
   * When given, decides whether the nearest memory (by the vectors) is a near-duplicate: its
   * similarity to that memory's text, compared with `dedupThreshold`, instead of the vectors' cosine.
   * memory.save passes wording similarity for semantic embedders, whose vectors put different facts
   * about one thing nearly on top of each other ("Invoice INV-1001 is paid" / "INV-1002": 0.995).
   */
  duplicateSimilarity?: (existingText: string) => number;
}

export interface SaveResult {
  memory: StoredMemory;
  created: boolean;
  deduplicated: boolean;
  /** Similarity with the memory it merged into, when deduplicated (see `duplicateSimilarity`). */
  similarity?: number;
}

export interface PartitionInfo {
  tenant: string;
  collection: string;
  model: string;
  dimensions: number;
  count: number;
}

export interface VectorStore {
  readonly name: "postgres" | "weaviate";
  start(): Promise<void>;
  close(): Promise<void>;
  /** Model of the partition's vectors, or null when it holds none. */
  partitionModel(tenant: string, collection: string): Promise<{ model: string; dimensions: number } | null>;
  save(req: SaveRequest): Promise<SaveResult>;
  search(tenant: string, collection: string, vector: Float32Array, opts: SearchOptions): Promise<Hit[]>;
  /** A memory of the tenant by id, in any collection. */
  get(tenant: string, id: string): Promise<StoredMemory | null>;
  /** Deletes these ids of the partition; returns how many existed. */
  forgetIds(tenant: string, collection: string, ids: string[]): Promise<number>;
  /** Deletes (or with dryRun only counts) the partition's memories matching the filter. */
  forgetWhere(tenant: string, collection: string, filter: FilterNode, dryRun: boolean): Promise<number>;
  /** Partitions (all tenants, or one), for the re-embed command. */
  partitions(tenant?: string): Promise<PartitionInfo[]>;
  /** Every memory of a partition (without vectors), in id order, in batches. */
  scan(tenant: string, collection: string, batchSize: number): AsyncIterable<StoredMemory[]>;
  /**
   * Replaces the vectors of a partition's memories (all of them: re-embedding) and its model;
   * `updatedAt` is not touched, so recency is kept.
   */
  replaceVectors(
    tenant: string,
    collection: string,
    model: string,
    dimensions: number,
    vectors: Map<string, Float32Array>,
  ): Promise<void>;
}

/** Whether `a` (score, updatedAt, id) ranks before `b`. */
export function ranksBefore(
  a: { score: number; updatedAt: number; id: string },
  b: { score: number; updatedAt: number; id: string },
): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt > b.updatedAt;
  return a.id < b.id;
}

/** The recency factor: 1 for a memory saved at `now`, ½ one half-life earlier, and so on. */
export function decay(updatedAt: number, now: number, halfLifeMs: number): number {
  if (!(halfLifeMs > 0)) return 1;
  const age = Math.max(0, now - updatedAt);
  return 0.5 ** (age / halfLifeMs);
}

/**
 * Keeps the best `k` items by {@link ranksBefore} (a bounded binary heap whose root is the worst
 * kept item).
 */
export class TopK<T extends { score: number; updatedAt: number; id: string }> {
  private readonly heap: T[] = [];
  private readonly k: number;

  constructor(k: number) {
    this.k = k;
  }

  get size(): number {
    return this.heap.length;
  }

  /** The worst kept item once full (the score a newcomer must beat), else undefined. */
  get threshold(): T | undefined {
    return this.heap.length >= this.k ? this.heap[0] : undefined;
  }

  /** Whether an item with this score could still enter. */
  admits(score: number): boolean {
    const worst = this.threshold;
    return !worst || score >= worst.score;
  }

  push(item: T): void {
    const h = this.heap;
    if (h.length < this.k) {
      h.push(item);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!ranksBefore(h[p], h[i])) break;
        [h[p], h[i]] = [h[i], h[p]];
        i = p;
      }
      return;
    }
    if (this.k === 0 || !ranksBefore(item, h[0])) return;
    h[0] = item;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && ranksBefore(h[worst], h[l])) worst = l;
      if (r < h.length && ranksBefore(h[worst], h[r])) worst = r;
      if (worst === i) break;
      [h[worst], h[i]] = [h[i], h[worst]];
      i = worst;
    }
  }

  /** Best first. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0));
  }
}
