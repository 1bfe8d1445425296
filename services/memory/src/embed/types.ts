/**
 * @module memory/embed/types
 * What the memory service needs from an embedding model: a name recorded with every vector, the
 * vectors' dimension, whether it matches by meaning or by words, and a batch call that tells queries
 * from documents (some models, e.g. nomic-embed-text, expect different prefixes for each).
 */

/**
 * The dimension the spec states for `memory.search` (§4.3, "768 dimensions") and every built-in
 * embedder produces. The stores do not assume it: each partition records the model and dimensions of
 * its vectors and refuses others.
 */
export const DIMENSIONS = 768;

export type EmbedKind = "query" | "document";

/**
 * How an embedder matches text: `semantic` (a language model: paraphrases and synonyms match) or
 * `lexical` (shared words, plurals and spelling variants only). Reported with every search result.
 */
export type Matching = "semantic" | "lexical";

export interface Embedder {
  /** Recorded with every stored vector, e.g. `use-lite-512-v1`, `lexical-hash-v1`, `openai:text-embedding-3-small`. */
  readonly model: string;
  readonly dimensions: number;
  readonly matching: Matching;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  /** Releases what the embedder holds (a worker thread); optional. */
  close?(): Promise<void>;
}

/** Scales `v` in place to unit length (a zero vector stays zero). */
export function normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}

/** Dot product; the cosine similarity of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array, bOffset = 0): number {
  let s = 0;
  const n = a.length;
  for (let i = 0; i < n; i++) s += a[i] * b[bOffset + i];
  return s;
}

/** Serialises a vector for Postgres `bytea` (float32 little-endian). */
export function vectorToBytes(v: Float32Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(v.length * 4));
  const view = new DataView(out.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i], true);
  return out;
}

/** {@link vectorToBytes} as a Buffer (what `pg` sends as bytea). */
export function vectorToBuffer(v: Float32Array): Buffer {
  const b = vectorToBytes(v);
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** Reads a vector stored by {@link vectorToBytes}. */
export function bytesToVector(b: Uint8Array): Float32Array {
  const out = new Float32Array(b.byteLength / 4);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
