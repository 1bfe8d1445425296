/**
 * @module connections/directory-vectors
 * The directory's search by meaning: vectors of the `use-lite-512-v1` sentence model (the kit's
 * `SentenceModel`, the same model the query is embedded with) for every toolkit and tool, built by
 * scripts/build-directory-vectors.ts into `vectors-f<format>/` beside the artifact, read lazily.
 *
 * - A toolkit's vector embeds its name, categories and description's first sentence.
 * - A tool's vector is the idf-weighted sum of the vectors of its search terms (src/tool-search.ts
 *   `terms` of its name, summary and path), normalised. Embedding each of the 107 000 tool texts
 *   would take the model 30–70 minutes of CPU on two cores (15–50 ms a text); its 15 000 terms take
 *   about a minute, and a term sum keeps most of what the model knows of each word ("forecast" is near
 *   "weather").
 *
 * Files (little-endian): `kit-vectors.bin` (int8, 512 a toolkit, scaled by `kit-scales.bin`
 * Float32), `tool-codes.bin` (512 bits a tool: the signs of its vector less the mean tool vector,
 * read whole: 64 bytes a tool, ~7 MiB), `tool-vectors.bin` (int8, 512 a tool, scaled by
 * `tool-scales.bin`; read per candidate with positioned reads, never whole), `vectors.json` (format,
 * model, counts, the mean vector).
 *
 * A query ranks all tools by Hamming distance of codes, then the closest few hundred by their int8
 * dot product with the query: the ranking of a full float scan, at a fraction of its time and memory.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { SENTENCE_MODEL, SENTENCE_MODEL_DIMENSIONS } from "@gantry/kit/sentence-model.ts";

/** Bumped when the files' shape or how the vectors are made changes. */
export const VECTORS_FORMAT = 1;
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
    this.header = header;
    return header;
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
