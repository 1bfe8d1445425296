/**
 * @module bench/lib/memory
 * The `memory` target group of `npm run bench` (issue 7): memory.search at 1k, 10k and 100k memories
 * in one collection, measured three ways against the floor for exact search in Node, plus memory.save
 * throughput.
 *
 *  - **floor**: a plain exact scan over one row-major `Float32Array` (N × 768) holding the same
 *    vectors: dot product with four accumulators, bounded top-k. No filter, no decay, no objects.
 *  - **store scan**: the service's own `PostgresStore.search` (services/memory/src/store/), imported
 *    and called in this process on a partition it loaded from the same rows (query vector given).
 *  - **in-service**: the service's memory.search handler (query embedding + scan + decay + hit
 *    formatting) in this process: everything the memory service does for a call except gRPC and
 *    JSON (de)serialisation.
 *  - **gateway**: `POST /v1/abilities/memory.search` through the real gateway and memory service
 *    with autocannon, at 1 connection (latency, comparable with the in-process timings) and at more
 *    (throughput, latency with queueing).
 *  - **save**: `memory.save` through the gateway with a fresh text per request, near-duplicate
 *    check on (cosine ≥ 0.97, the service's default).
 *
 * Seeding is bulk SQL into the service's schema (`memory.memory_collections`, `memory.memories`),
 * with vectors from the service's own `lexical-hash-v1` embedder and its float32-LE byte layout, so
 * the rows are exactly what memory.save would have written (ids, texts, metadata, times, model,
 * dimensions); only the per-row transaction and dedup check are skipped. Texts are synthetic notes
 * drawn from a Zipf-distributed vocabulary (English function and content words, then pseudo-words),
 * deterministic per seed; queries are 2–4 content words of a stored note, sometimes with a typo.
 */
import os from "node:os";
import type pg from "pg";
import { createLogger, mulberry32, type CallContext } from "@gantry/kit";
import { LexicalHashEmbedder } from "../../services/memory/src/embed/lexical.ts";
import { DIMENSIONS, vectorToBytes } from "../../services/memory/src/embed/types.ts";
import { PostgresStore } from "../../services/memory/src/store/postgres.ts";
import memorySearch from "../../services/memory/src/abilities/memory.search.ts";
import type { Context } from "../../services/memory/src/context.ts";
import type { MemoryConfig } from "../../services/memory/src/config.ts";
import type { InProcessResult, Stats } from "./memory-report.ts";

export type { InProcessResult, MemoryReport, MemorySizeResult, Stats } from "./memory-report.ts";
export { renderMemoryMarkdown } from "./memory-report.ts";

export const MEMORY_TENANT = "bench-memory";
/** The service's defaults (services/memory/src/config.ts), which the bench stack runs with. */
export const HALF_LIFE_DAYS = 30;
export const DEDUP_THRESHOLD = 0.97;
export const SEARCH_LIMIT = 5;

// ---- corpus ------------------------------------------------------------------------------------

/** A small deterministic PRNG (mulberry32, from the kit). */
export const prng = mulberry32;

const FUNCTION_WORDS =
  "the a to of and is on in for with at by from that this it be was are has have will after before".split(" ");
const CONTENT_WORDS = (
  "customer invoice order delivery warehouse vet appointment diet kibble dog cat clinic refill prescription " +
  "schedule meeting budget contract renewal supplier shipment payment refund allergy vaccine dentist report " +
  "project deadline release review server backup database migration outage ticket support manager team " +
  "office rent lease parking garden fence roof plumber electrician heating boiler filter insurance policy " +
  "claim premium account password login license subscription quarterly monthly weekly tuesday friday morning " +
  "evening north south harbour ferry train flight hotel booking passport visa luggage recipe salmon chicken " +
  "allergic prefers likes avoids needs requested confirmed cancelled moved paid owes ordered delivered " +
  "returned approved signed scheduled renewed expires due late early urgent blue large small new old " +
  "golden retriever puppy lighthouse keeper generator laptop printer phone router firmware update sensor"
).split(" ");
const ONSETS = [
  "b",
  "br",
  "c",
  "ch",
  "d",
  "f",
  "g",
  "gr",
  "h",
  "j",
  "k",
  "l",
  "m",
  "n",
  "p",
  "pr",
  "qu",
  "r",
  "s",
  "st",
  "t",
  "tr",
  "v",
  "w",
  "z",
];
const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ou", "io"];
const CODAS = ["", "n", "r", "s", "l", "t", "nd", "rk", "st", "m"];
const KINDS = ["note", "preference", "fact", "task", "contact", "event", "decision"];

function pseudoWord(r: () => number): string {
  const syllables = 2 + Math.floor(r() * 2);
  let w = "";
  for (let s = 0; s < syllables; s++)
    w +=
      ONSETS[Math.floor(r() * ONSETS.length)] +
      NUCLEI[Math.floor(r() * NUCLEI.length)] +
      (s === syllables - 1 ? CODAS[Math.floor(r() * CODAS.length)] : "");
  return w;
}

/**
 * Synthetic notes over a 6,000-word vocabulary with Zipf-like frequencies (rank r weighted
 * 1 / (r + 2)): function words first, then content words, then pseudo-words. Deterministic.
 */
export class Corpus {
  private readonly words: string[];
  private readonly cumulative: Float64Array;
  private readonly r: () => number;

  constructor(seed: number, vocabulary = 6_000) {
    const vr = prng(0x5eed); // the vocabulary is the same for every seed
    const seen = new Set<string>([...FUNCTION_WORDS, ...CONTENT_WORDS]);
    this.words = [...FUNCTION_WORDS, ...CONTENT_WORDS];
    while (this.words.length < vocabulary) {
      const w = pseudoWord(vr);
      if (!seen.has(w)) {
        seen.add(w);
        this.words.push(w);
      }
    }
    this.cumulative = new Float64Array(this.words.length);
    let sum = 0;
    for (let i = 0; i < this.words.length; i++) this.cumulative[i] = sum += 1 / (i + 2);
    for (let i = 0; i < this.words.length; i++) this.cumulative[i] /= sum;
    this.r = prng(seed);
  }

  private word(): string {
    const x = this.r();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo];
  }

  /** A note of 8–24 words, e.g. "Golden friday the order prousk to invoice brea …". */
  text(): string {
    const n = 8 + Math.floor(this.r() * 17);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.word());
    if (this.r() < 0.2) out.splice(Math.floor(this.r() * out.length), 0, String(1 + Math.floor(this.r() * 999)));
    out[0] = out[0][0].toUpperCase() + out[0].slice(1);
    return `${out.join(" ")}.`;
  }

  /** 2–4 content words of `note` (function words skipped), one in five with a typo. */
  queryFor(note: string): string {
    const words = note
      .toLowerCase()
      .replace(/[^a-z0-9 ]/g, "")
      .split(" ")
      .filter((w) => w.length > 2 && !FUNCTION_WORDS.includes(w));
    const pool = [...new Set(words.length ? words : ["invoice"])];
    const n = Math.min(pool.length, 2 + Math.floor(this.r() * 3));
    const picked: string[] = [];
    for (let i = 0; i < n; i++) picked.push(pool.splice(Math.floor(this.r() * pool.length), 1)[0]);
    if (this.r() < 0.2 && picked[0].length > 4)
      picked[0] = picked[0].slice(0, 2) + picked[0][3] + picked[0][2] + picked[0].slice(4);
    return picked.join(" ");
  }

  metadata(i: number): Record<string, string | number | boolean> {
    return { kind: KINDS[i % KINDS.length], n: i, pinned: this.r() < 0.05 };
  }

  base62(len: number): string {
    const A = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let s = "";
    for (let i = 0; i < len; i++) s += A[Math.floor(this.r() * 62)];
    return s;
  }

  uniform(): number {
    return this.r();
  }
}

// ---- seeding ---------------------------------------------------------------------------------

export interface Seeded {
  collection: string;
  size: number;
  /** Row-major N × 768, in insertion order: the floor scans this. */
  matrix: Float32Array;
  /** A sample of the stored notes (for queries). */
  sample: string[];
  embedSec: number;
  insertSec: number;
}

/** Memories `start … start + ids.length − 1` of a seeded collection, as memory.save would store them. */
export interface MemoryBatch {
  start: number;
  ids: string[];
  texts: string[];
  /** Metadata as JSON text. */
  metas: string[];
  /** Saved times, ms since the epoch. */
  times: number[];
  /** Unit vectors from the service's `lexical-hash-v1` embedder. */
  vectors: Float32Array[];
}

export const SEED_BATCH = 1_000;

/**
 * Draws `n` memories (rows `start …`) from `corpus` and embeds them: texts, `mem_…` ids, metadata,
 * saved times spread over the 180 days before `now`. Deterministic for a corpus seed.
 */
export async function memoryBatch(
  corpus: Corpus,
  embedder: LexicalHashEmbedder,
  start: number,
  n: number,
  now: number,
): Promise<MemoryBatch> {
  const batch: MemoryBatch = { start, ids: [], texts: [], metas: [], times: [], vectors: [] };
  for (let i = 0; i < n; i++) {
    // The draw order (text, id, metadata, time) is part of what a seed means: keep it.
    batch.texts.push(corpus.text());
    batch.ids.push(`mem_${corpus.base62(22)}`);
    batch.metas.push(JSON.stringify(corpus.metadata(start + i)));
    batch.times.push(now - Math.floor(corpus.uniform() * 180 * 86_400_000));
  }
  batch.vectors = await embedder.embed(batch.texts, "document");
  return batch;
}

/** The partition row of `collection` of {@link MEMORY_TENANT} (which must not exist yet), at version 1. */
export async function createCollectionRow(pool: pg.Pool, collection: string, model: string): Promise<void> {
  await pool.query(
    `INSERT INTO memory.memory_collections (tenant, name, model, dimensions, version) VALUES ($1, $2, $3, $4, 1)`,
    [MEMORY_TENANT, collection, model, DIMENSIONS],
  );
}

/**
 * One `INSERT … SELECT` for the whole batch: the vectors travel as one binary bytea in the service's
 * layout (float32 little-endian, embed/types.ts vectorToBytes), sliced in SQL.
 */
export async function insertBatch(pool: pg.Pool, collection: string, model: string, b: MemoryBatch): Promise<void> {
  const n = b.ids.length;
  const rowBytes = DIMENSIONS * 4;
  const littleEndian = os.endianness() === "LE";
  const bytes = Buffer.alloc(n * rowBytes);
  for (let i = 0; i < n; i++) {
    const v = b.vectors[i];
    if (littleEndian) Buffer.from(v.buffer, v.byteOffset, rowBytes).copy(bytes, i * rowBytes);
    else bytes.set(vectorToBytes(v), i * rowBytes);
  }
  await pool.query(
    `INSERT INTO memory.memories (tenant, id, collection, text, metadata, vector, model, dimensions, created_at, updated_at)
     SELECT $1, a.ids[g], $2, a.texts[g], a.metas[g]::jsonb, substring($6::bytea FROM (g - 1) * $8 + 1 FOR $8), $7, $9,
            to_timestamp(a.times[g] / 1000.0), to_timestamp(a.times[g] / 1000.0)
       FROM (SELECT $3::text[] AS ids, $4::text[] AS texts, $5::text[] AS metas, $10::float8[] AS times) a,
            generate_series(1, $11::int) g`,
    [MEMORY_TENANT, collection, b.ids, b.texts, b.metas, bytes, model, rowBytes, DIMENSIONS, b.times, n],
  );
}

/** At most `limit` promises in flight: {@link add} waits for one to settle once the limit is reached. */
export class InFlight {
  private readonly pending = new Set<Promise<unknown>>();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  async add(p: Promise<unknown>): Promise<void> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    if (this.pending.size >= this.limit) await Promise.race(this.pending);
  }

  async drain(): Promise<void> {
    await Promise.all(this.pending);
  }
}

/** Throws unless `collection` of {@link MEMORY_TENANT} holds exactly `size` memories. */
export async function assertSeeded(pool: pg.Pool, collection: string, size: number): Promise<void> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM memory.memories WHERE tenant = $1 AND collection = $2`,
    [MEMORY_TENANT, collection],
  );
  if (rows[0].n !== size) throw new Error(`seeded ${rows[0].n} memories into ${collection}, wanted ${size}`);
}

/**
 * Inserts `size` memories into `collection` of {@link MEMORY_TENANT} (which must not exist yet):
 * the partition row, then the memories in batches of 1,000 ({@link insertBatch}), two batches in
 * flight while the next is embedded. Saved times are spread over the last 180 days.
 */
export async function seedCollection(pool: pg.Pool, collection: string, size: number, seed: number): Promise<Seeded> {
  const embedder = new LexicalHashEmbedder();
  const corpus = new Corpus(seed);
  const now = Date.now();
  const matrix = new Float32Array(size * DIMENSIONS);
  const sample: string[] = [];
  const sampleEvery = Math.max(1, Math.floor(size / 2_000));
  let embedMs = 0;
  const t0 = performance.now();
  await createCollectionRow(pool, collection, embedder.model);
  const inFlight = new InFlight(2);
  for (let start = 0; start < size; start += SEED_BATCH) {
    const te = performance.now();
    const b = await memoryBatch(corpus, embedder, start, Math.min(SEED_BATCH, size - start), now);
    embedMs += performance.now() - te;
    for (let i = 0; i < b.ids.length; i++) {
      matrix.set(b.vectors[i], (start + i) * DIMENSIONS);
      if ((start + i) % sampleEvery === 0) sample.push(b.texts[i]);
    }
    await inFlight.add(insertBatch(pool, collection, embedder.model, b));
  }
  await inFlight.drain();
  await assertSeeded(pool, collection, size);
  const total = (performance.now() - t0) / 1000;
  return { collection, size, matrix, sample, embedSec: embedMs / 1000, insertSec: total - embedMs / 1000 };
}

// ---- the floor -------------------------------------------------------------------------------

/**
 * The floor: exact top-k by dot product over a row-major matrix of `n` unit vectors. Four
 * accumulators (the same unrolling as the service's Partition, so the comparison is of everything
 * around the arithmetic, not of the arithmetic), a sorted insertion buffer for the k best. Returns
 * the row numbers, best first.
 */
export function floorSearch(
  matrix: Float32Array,
  n: number,
  q: Float32Array,
  k: number,
): { rows: Int32Array; scores: Float64Array } {
  const d = q.length;
  const rows = new Int32Array(k).fill(-1);
  const scores = new Float64Array(k).fill(-Infinity);
  let worst = -Infinity;
  for (let r = 0, o = 0; r < n; r++, o += d) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < d; i += 4) {
      s0 += q[i] * matrix[o + i];
      s1 += q[i + 1] * matrix[o + i + 1];
      s2 += q[i + 2] * matrix[o + i + 2];
      s3 += q[i + 3] * matrix[o + i + 3];
    }
    const s = s0 + s1 + s2 + s3;
    if (s <= worst) continue;
    let j = k - 1;
    while (j > 0 && scores[j - 1] < s) {
      scores[j] = scores[j - 1];
      rows[j] = rows[j - 1];
      j--;
    }
    scores[j] = s;
    rows[j] = r;
    worst = scores[k - 1];
  }
  return { rows, scores };
}

/** The same scan with one accumulator (the textbook loop), for reference. */
export function naiveFloorSearch(matrix: Float32Array, n: number, q: Float32Array, k: number): Int32Array {
  const d = q.length;
  const rows = new Int32Array(k).fill(-1);
  const scores = new Float64Array(k).fill(-Infinity);
  for (let r = 0, o = 0; r < n; r++, o += d) {
    let s = 0;
    for (let i = 0; i < d; i++) s += q[i] * matrix[o + i];
    if (s <= scores[k - 1]) continue;
    let j = k - 1;
    while (j > 0 && scores[j - 1] < s) {
      scores[j] = scores[j - 1];
      rows[j] = rows[j - 1];
      j--;
    }
    scores[j] = s;
    rows[j] = r;
  }
  return rows;
}

// ---- in-process timings ----------------------------------------------------------------------

export function stats(ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  return {
    n: s.length,
    p50: at(50),
    p90: at(90),
    p99: at(99),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    min: s[0],
  };
}

export function memoryCallContext(collections: string[]): CallContext {
  return {
    requestId: "bench",
    tenant: MEMORY_TENANT,
    keyTenant: MEMORY_TENANT,
    keyId: "bench",
    scopes: ["*"],
    collections,
    products: [],
    admin: false,
    subTenants: false,
  };
}

/**
 * Times the floor, the store's scan, the service's handler and the query embedding in this process,
 * interleaved query by query (so drift on a shared machine hits all of them alike), after a warm-up.
 * `rounds` passes over the queries; every call is one sample.
 */
export async function timeInProcess(
  pool: pg.Pool,
  seeded: Seeded,
  queries: string[],
  rounds: number,
): Promise<InProcessResult> {
  const embedder = new LexicalHashEmbedder();
  const store = new PostgresStore({ pool, log: createLogger("bench-memory", "silent"), checkIntervalMs: 0 });
  await store.start();
  try {
    const config = { MEMORY_HALF_LIFE_DAYS: HALF_LIFE_DAYS, MEMORY_DEDUP_THRESHOLD: DEDUP_THRESHOLD } as MemoryConfig;
    const deps = {
      config,
      embedder,
      store,
      now: () => Date.now(),
      log: createLogger("bench-memory", "silent"),
    } as unknown as Context;
    const call = memoryCallContext([seeded.collection]);
    const input = (query: string) => ({ query, collection: seeded.collection, limit: SEARCH_LIMIT });
    const halfLifeMs = HALF_LIFE_DAYS * 86_400_000;

    const t = performance.now();
    await memorySearch.run(input(queries[0]), call, deps);
    const coldLoadMs = performance.now() - t;

    const vectors = await embedder.embed(queries, "query");
    // Exactness: with decay off, the store and the floor must find the same similarities, best first.
    let same = true;
    for (let i = 0; i < Math.min(20, vectors.length); i++) {
      const hits = await store.search(MEMORY_TENANT, seeded.collection, vectors[i], {
        limit: SEARCH_LIMIT,
        now: Date.now(),
        halfLifeMs: 0,
      });
      const f = [...floorSearch(seeded.matrix, seeded.size, vectors[i], SEARCH_LIMIT).scores].filter((s) => s > 0);
      if (f.length !== hits.length || f.some((s, j) => Math.abs(s - hits[j].similarity) > 1e-6)) same = false;
    }

    const floor: number[] = [];
    const naive: number[] = [];
    const scan: number[] = [];
    const service: number[] = [];
    const embed: number[] = [];
    // The floor and the handler on every query; the rest (details) on the first `DETAIL` queries,
    // which keeps 100k memories to about a minute.
    const DETAIL = 50;
    let sink = 0;
    const once = async (i: number, record: boolean) => {
      const q = vectors[i];
      const t0 = performance.now();
      sink += floorSearch(seeded.matrix, seeded.size, q, SEARCH_LIMIT).rows[0];
      const t1 = performance.now();
      sink += ((await memorySearch.run(input(queries[i]), call, deps)) as { hits: unknown[] }).hits.length;
      const t2 = performance.now();
      if (record) {
        floor.push(t1 - t0);
        service.push(t2 - t1);
      }
      if (i >= DETAIL) return;
      const t3 = performance.now();
      sink += naiveFloorSearch(seeded.matrix, seeded.size, q, SEARCH_LIMIT)[0];
      const t4 = performance.now();
      sink += (
        await store.search(MEMORY_TENANT, seeded.collection, q, { limit: SEARCH_LIMIT, now: Date.now(), halfLifeMs })
      ).length;
      const t5 = performance.now();
      sink += (await embedder.embed([queries[i]], "query"))[0][0];
      const t6 = performance.now();
      if (record) {
        naive.push(t4 - t3);
        scan.push(t5 - t4);
        embed.push(t6 - t5);
      }
    };
    // Warm-up: 20 queries and at least 300 ms, so the scans are optimised before anything counts.
    const warmUntil = performance.now() + 300;
    for (let i = 0; i < 20 || performance.now() < warmUntil; i++) await once(i % queries.length, false);
    for (let r = 0; r < rounds; r++) for (let i = 0; i < queries.length; i++) await once(i, true);
    if (sink === 0.123456789) process.stdout.write(""); // keep the results alive
    return {
      coldLoadMs,
      floor: stats(floor),
      naiveFloor: stats(naive),
      store: stats(scan),
      service: stats(service),
      embed: stats(embed),
      sameTopIds: same,
    };
  } finally {
    await store.close();
  }
}
