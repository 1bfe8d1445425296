/**
 * @module memory/store/partition
 * One (tenant, collection) partition held in memory as a row-major `Float32Array` matrix of unit
 * vectors plus parallel arrays of ids, texts, metadata, verticals and timestamps. Search is an exact scan:
 * filter, dot product (cosine, the vectors being unit length), recency decay, bounded top-k heap.
 * Rows are removed by moving the last row into the hole, so the matrix stays dense.
 */
import { matches, type FilterNode, type Metadata } from "../filter.ts";
import { decay, TopK, type Hit, type SearchOptions, type StoredMemory } from "./types.ts";

export interface PartitionRow extends StoredMemory {
  vector: Float32Array;
}

export class Partition {
  readonly collection: string;
  /** Set by the first vector's model (see {@link retarget}); every row has this many. */
  private dims: number;
  model: string;
  /** The `memory_collections.version` this content reflects. */
  version: number;
  lastUsed = Date.now();
  private vectors: Float32Array;
  private capacity: number;
  private ids: string[] = [];
  private texts: string[] = [];
  private metas: Metadata[] = [];
  private verticals: (string | null)[] = [];
  private created: number[] = [];
  private updated: number[] = [];
  private rowOf = new Map<string, number>();

  constructor(collection: string, model: string, dimensions: number, version: number, capacity = 16) {
    this.collection = collection;
    this.model = model;
    this.dims = dimensions;
    this.version = version;
    this.capacity = Math.max(16, capacity);
    this.vectors = new Float32Array(this.capacity * dimensions);
  }

  get size(): number {
    return this.ids.length;
  }

  get dimensions(): number {
    return this.dims;
  }

  /**
   * Gives an empty partition another model and dimension (its first memory after being emptied, or
   * a collection created before any vector was cached, may come from an embedder of another size).
   */
  retarget(model: string, dimensions: number): void {
    if (this.size > 0) throw new Error(`partition ${this.collection} holds vectors; re-embed it to change models`);
    this.model = model;
    if (dimensions !== this.dims) {
      this.dims = dimensions;
      this.vectors = new Float32Array(this.capacity * dimensions);
    }
  }

  /** Approximate bytes held (vectors dominate). */
  get bytes(): number {
    return this.vectors.byteLength + this.ids.length * 256;
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  get(id: string): StoredMemory | undefined {
    const row = this.rowOf.get(id);
    return row === undefined ? undefined : this.memory(row);
  }

  private memory(row: number): StoredMemory {
    return {
      id: this.ids[row],
      collection: this.collection,
      text: this.texts[row],
      metadata: this.metas[row],
      vertical: this.verticals[row],
      model: this.model,
      dimensions: this.dimensions,
      createdAt: this.created[row],
      updatedAt: this.updated[row],
    };
  }

  upsert(m: PartitionRow): void {
    if (m.vector.length !== this.dimensions)
      throw new Error(`vector of ${m.vector.length} dimensions in a ${this.dimensions}-dimension partition`);
    let row = this.rowOf.get(m.id);
    if (row === undefined) {
      row = this.ids.length;
      if (row >= this.capacity) this.grow(row + 1);
      this.ids.push(m.id);
      this.texts.push(m.text);
      this.metas.push(m.metadata);
      this.verticals.push(m.vertical);
      this.created.push(m.createdAt);
      this.updated.push(m.updatedAt);
      this.rowOf.set(m.id, row);
    } else {
      this.texts[row] = m.text;
      this.metas[row] = m.metadata;
      this.verticals[row] = m.vertical;
      this.created[row] = m.createdAt;
      this.updated[row] = m.updatedAt;
    }
    this.vectors.set(m.vector, row * this.dimensions);
  }

  remove(id: string): boolean {
    const row = this.rowOf.get(id);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const d = this.dimensions;
      this.vectors.copyWithin(row * d, last * d, last * d + d);
      this.ids[row] = this.ids[last];
      this.texts[row] = this.texts[last];
      this.metas[row] = this.metas[last];
      this.verticals[row] = this.verticals[last];
      this.created[row] = this.created[last];
      this.updated[row] = this.updated[last];
      this.rowOf.set(this.ids[row], row);
    }
    this.ids.pop();
    this.texts.pop();
    this.metas.pop();
    this.verticals.pop();
    this.created.pop();
    this.updated.pop();
    this.rowOf.delete(id);
    return true;
  }

  private grow(needed: number): void {
    let cap = this.capacity;
    while (cap < needed) cap *= 2;
    const next = new Float32Array(cap * this.dimensions);
    next.set(this.vectors.subarray(0, this.ids.length * this.dimensions));
    this.vectors = next;
    this.capacity = cap;
  }

  private similarity(q: Float32Array, row: number): number {
    const d = this.dimensions;
    return (d & 3) === 0 ? dot4(q, this.vectors, row * d, d) : dot1(q, this.vectors, row * d, d);
  }

  /** Exact top-k by similarity × recency decay, after the vertical and the filter. */
  search(q: Float32Array, opts: SearchOptions): Hit[] {
    this.lastUsed = Date.now();
    const top = new TopK<Hit & { row: number }>(opts.limit);
    const n = this.ids.length;
    for (let row = 0; row < n; row++) {
      if (opts.vertical !== undefined && this.verticals[row] !== opts.vertical) continue;
      if (opts.filter && !matches(opts.filter, this.metas[row])) continue;
      const similarity = this.similarity(q, row);
      if (!(similarity > 0) || !top.admits(similarity)) continue; // decay ≤ 1, so score ≤ similarity
      const score = similarity * decay(this.updated[row], opts.now, opts.halfLifeMs);
      if (!top.admits(score)) continue;
      top.push({ ...this.memory(row), row, similarity, score });
    }
    return top.sorted().map(({ row: _row, ...hit }) => hit);
  }

  /** The most similar memory (no decay, no filter), for near-duplicate detection. */
  nearest(q: Float32Array): { id: string; similarity: number } | undefined {
    let best: { id: string; similarity: number } | undefined;
    for (let row = 0; row < this.ids.length; row++) {
      const s = this.similarity(q, row);
      if (!best || s > best.similarity) best = { id: this.ids[row], similarity: s };
    }
    return best;
  }

  /** Ids whose metadata matches the filter. */
  idsWhere(filter: FilterNode): string[] {
    const out: string[] = [];
    for (let row = 0; row < this.ids.length; row++) if (matches(filter, this.metas[row])) out.push(this.ids[row]);
    return out;
  }
}

/**
 * Dot product of `q` with `v[o .. o + d)`, `d` a multiple of 4: four accumulators (independent
 * add chains) and no tail loop. Keep this shape: V8 compiles `i < d; i += 4` with `o + i` indexing
 * markedly better than a `i + 3 < d` loop with a separate offset and a tail (docs/benchmarks.md,
 * *Figures the source refers to*, *The dot product's loop shape*).
 */
function dot4(q: Float32Array, v: Float32Array, o: number, d: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let i = 0; i < d; i += 4) {
    s0 += q[i] * v[o + i];
    s1 += q[i + 1] * v[o + i + 1];
    s2 += q[i + 2] * v[o + i + 2];
    s3 += q[i + 3] * v[o + i + 3];
  }
  return s0 + s1 + s2 + s3;
}

/** Dot product for any `d`. */
function dot1(q: Float32Array, v: Float32Array, o: number, d: number): number {
  let s = 0;
  for (let i = 0; i < d; i++) s += q[i] * v[o + i];
  return s;
}
