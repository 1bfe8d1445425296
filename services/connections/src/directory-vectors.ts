/**
 * @module connections/directory-vectors
 * The directory's search by meaning: vectors made with the `use-lite-512-v1` sentence model (the
 * kit's `SentenceModel`) at build time only, by scripts/build-directory-vectors.ts into
 * `vectors-f<format>/` beside the artifact, read lazily. No model runs at query time.
 *
 * - The term table: every search term of a tool or toolkit (src/search-terms.ts `terms`) and the
 *   whole words of the model's own vocabulary (kit `sentenceModelWords`: "funny", "tomorrow"), each
 *   embedded alone, 23 000 terms in 2–3 minutes of CPU.
 * - A tool's vector is the idf-weighted sum of its terms' vectors (name, summary and path),
 *   normalised; a toolkit's likewise (name, categories, description's first sentence). Embedding each
 *   of the 107 000 tool texts would take the model 30–70 minutes of CPU on two cores (15–50 ms a
 *   text), and a term sum keeps most of what the model knows of each word ("forecast" is near
 *   "weather").
 * - A query's vector is made the same way (`embedQuery`, a static embedding in the manner of
 *   Model2Vec): its terms looked up in the shipped table, summed with their query weights,
 *   normalised. That takes microseconds instead of the model's 20–700 ms in a 220 MiB child process,
 *   and puts the query in the very space the tools' and toolkits' vectors live in. A query word
 *   outside the table adds nothing; a query with none is ranked by words alone. What it loses: a
 *   sum reads no sentence ("what does this word mean" is a definition only to the model), which is
 *   why integration.search, among one toolkit's few candidates, re-ranks with the model itself
 *   (src/tool-meaning.ts).
 *
 * Files (little-endian): `kit-vectors.bin` (int8, 512 a toolkit, scaled by `kit-scales.bin`
 * Float32), `tool-codes.bin` (512 bits a tool: the signs of its vector less the mean tool vector,
 * read whole: 64 bytes a tool, ~7 MiB), `tool-vectors.bin` (int8, 512 a tool, scaled by
 * `tool-scales.bin`; read per candidate with positioned reads, never whole), `terms.txt` (the term
 * table's words, sorted, one a line), `term-vectors.bin` (int8, 512 a term, read per query term with
 * positioned reads), `term-scales.bin` and `term-weights.bin` (Float32 a term: its int8 scale and
 * weight in a query, scripts/build-directory-vectors.ts), `vectors.json` (format, model, counts, the mean vector).
 *
 * A query ranks all tools by Hamming distance of codes, then the closest few hundred by their int8
 * dot product with the query: the ranking of a full float scan, at a fraction of its time and memory.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { SENTENCE_MODEL, SENTENCE_MODEL_DIMENSIONS } from "@gantry/kit/sentence-model.ts";
import { terms } from "./search-terms.ts";

/** Bumped when the files' shape or how the vectors are made changes. */
export const VECTORS_FORMAT = 2;
const D = SENTENCE_MODEL_DIMENSIONS;
/** Tools the codes keep for the int8 re-rank. */
const CANDIDATES = 400;

export function vectorsDir(artifact: string): string {
  return join(artifact, `vectors-f${VECTORS_FORMAT}`);
}

export interface VectorsHeader {
  format: number;
  model: string;
  dimensions: number;
  tools: number;
  toolkits: number;
  /** Words in the term table. */
  terms: number;
  /** The mean tool vector, subtracted before taking signs (the term sums share a direction). */
  mean: number[];
}

/** Int8 codes of a unit vector and the scale that restores it. */
export function quantise(v: Float32Array, out: Int8Array, at: number): number {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? max / 127 : 0;
  for (let i = 0; i < v.length; i++) out[at + i] = scale ? Math.round((v[i] as number) / scale) : 0;
  return scale;
}

/** The signs of `v - mean` as bits, into `out` at word `at` (16 words of 32 bits). */
export function signCode(v: Float32Array, mean: ArrayLike<number>, out: Uint32Array, at: number): void {
  for (let w = 0; w < D / 32; w++) {
    let bits = 0;
    for (let b = 0; b < 32; b++) if ((v[w * 32 + b] as number) > (mean[w * 32 + b] as number)) bits |= 1 << b;
    out[at + w] = bits >>> 0;
  }
}

/** The position of `word` in the sorted `words`, or -1. */
function bisect(words: string[], word: string): number {
  let lo = 0;
  let hi = words.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const w = words[mid] as string;
    if (w === word) return mid;
    if (w < word) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export class DirectoryVectors {
  private readonly dir: string;
  private header: VectorsHeader | null = null;
  private kits: Int8Array | null = null;
  private kitScales: Float32Array | null = null;
  private codes: Uint32Array | null = null;
  private toolScales: Float32Array | null = null;
  private distance: Uint16Array | null = null;
  private vocabulary: string[] | null = null;
  private termScales: Float32Array | null = null;
  private termWeights: Float32Array | null = null;

  constructor(artifact: string) {
    this.dir = vectorsDir(artifact);
  }

  /** Whether the vectors were built for this artifact (else search stays lexical). */
  get built(): boolean {
    return existsSync(join(this.dir, "vectors.json"));
  }

  private load(): VectorsHeader {
    if (this.header) return this.header;
    const header = JSON.parse(readFileSync(join(this.dir, "vectors.json"), "utf8")) as VectorsHeader;
    if (header.format !== VECTORS_FORMAT || header.model !== SENTENCE_MODEL || header.dimensions !== D)
      throw new Error(
        `${this.dir} holds vectors format ${header.format} of ${header.model}, not format ${VECTORS_FORMAT} of ${SENTENCE_MODEL}`,
      );
    const file = (name: string) => {
      const b = readFileSync(join(this.dir, name));
      return b.byteOffset % 4 === 0 ? b : Buffer.from(new Uint8Array(b));
    };
    const kits = file("kit-vectors.bin");
    this.kits = new Int8Array(kits.buffer, kits.byteOffset, kits.length);
    const ks = file("kit-scales.bin");
    this.kitScales = new Float32Array(ks.buffer, ks.byteOffset, ks.length / 4);
    const codes = file("tool-codes.bin");
    this.codes = new Uint32Array(codes.buffer, codes.byteOffset, codes.length / 4);
    const ts = file("tool-scales.bin");
    this.toolScales = new Float32Array(ts.buffer, ts.byteOffset, ts.length / 4);
    this.distance = new Uint16Array(header.tools);
    this.vocabulary = readFileSync(join(this.dir, "terms.txt"), "utf8").split("\n");
    const tsc = file("term-scales.bin");
    this.termScales = new Float32Array(tsc.buffer, tsc.byteOffset, tsc.length / 4);
    const tw = file("term-weights.bin");
    this.termWeights = new Float32Array(tw.buffer, tw.byteOffset, tw.length / 4);
    this.header = header;
    return header;
  }

  /**
   * The query's unit vector from the term table (the idf-weighted sum of its terms' vectors, as a
   * tool's is made), or null when no term of it is in the table.
   */
  embedQuery(query: string): Float32Array | null {
    this.load();
    const vocabulary = this.vocabulary as string[];
    const rows = terms(query)
      .map((t) => bisect(vocabulary, t))
      .filter((r) => r >= 0);
    if (!rows.length) return null;
    const q = new Float32Array(D);
    const row = new Int8Array(D);
    const bytes = new Uint8Array(row.buffer);
    const fd = openSync(join(this.dir, "term-vectors.bin"), "r");
    try {
      for (const r of rows) {
        readSync(fd, bytes, 0, D, r * D);
        const w = (this.termWeights as Float32Array)[r] as number;
        const scale = w * ((this.termScales as Float32Array)[r] as number);
        for (let i = 0; i < D; i++) q[i] = (q[i] as number) + scale * (row[i] as number);
      }
    } finally {
      closeSync(fd);
    }
    let n = 0;
    for (const x of q) n += x * x;
    if (n === 0) return null;
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < D; i++) q[i] = (q[i] as number) * inv;
    return q;
  }

  /** Every toolkit's cosine with the query vector, by toolkit id. */
  toolkitSimilarity(q: Float32Array): Float32Array {
    const h = this.load();
    const kits = this.kits as Int8Array;
    const scales = this.kitScales as Float32Array;
    const out = new Float32Array(h.toolkits);
    for (let k = 0; k < h.toolkits; k++) {
      let s = 0;
      const at = k * D;
      for (let i = 0; i < D; i++) s += (q[i] as number) * (kits[at + i] as number);
      out[k] = s * (scales[k] as number);
    }
    return out;
  }

  /** The `limit` tools nearest the query vector, best first: [tool id, cosine]. */
  nearestTools(q: Float32Array, limit: number): [number, number][] {
    const h = this.load();
    const codes = this.codes as Uint32Array;
    const distance = this.distance as Uint16Array;
    const code = new Uint32Array(D / 32);
    signCode(q, h.mean, code, 0);
    const histogram = new Uint32Array(D + 1);
    for (let t = 0, at = 0; t < h.tools; t++, at += 16) {
      let d = 0;
      for (let w = 0; w < 16; w++) d += popcount(((codes[at + w] as number) ^ (code[w] as number)) >>> 0);
      distance[t] = d;
      histogram[d] = (histogram[d] as number) + 1;
    }
    // The distance under which the CANDIDATES closest fall, found by counting (no sort of 100 000).
    let cut = 0;
    for (let seen = 0; cut <= D && seen < CANDIDATES; cut++) seen += histogram[cut] as number;
    const candidates: number[] = [];
    for (let t = 0; t < h.tools; t++) if ((distance[t] as number) < cut) candidates.push(t);
    const cos = this.similarity(q, candidates);
    const scored = candidates.map((t, i): [number, number] => [t, cos[i] as number]);
    return scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit);
  }

  /** The cosine of each tool with the query vector, from its int8 row (positioned reads, no whole file). */
  similarity(q: Float32Array, tools: number[]): Float32Array {
    this.load();
    const scales = this.toolScales as Float32Array;
    const out = new Float32Array(tools.length);
    const fd = openSync(join(this.dir, "tool-vectors.bin"), "r");
    const row = new Int8Array(D);
    const bytes = new Uint8Array(row.buffer);
    try {
      tools.forEach((t, j) => {
        readSync(fd, bytes, 0, D, t * D);
        let s = 0;
        for (let i = 0; i < D; i++) s += (q[i] as number) * (row[i] as number);
        out[j] = s * (scales[t] as number);
      });
    } finally {
      closeSync(fd);
    }
    return out;
  }
}
