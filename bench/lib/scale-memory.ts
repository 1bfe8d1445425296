/**
 * @module bench/lib/scale-memory
 * memory.search at growing collection sizes, for `npm run bench -- --scale` (issue 30): one
 * collection of one tenant grown to each size in turn (the memory group's corpus, seeding and
 * queries, bench/lib/memory.ts), then searched for the top 5 through the Postgres store and the
 * Weaviate store (HNSW), each called in this process with the query vector given, and scored by
 * recall@5 against an exact scan of the same vectors done here.
 *
 * Recall counts a returned memory as one of the true top 5 when its cosine with the query (computed
 * here from the seeded vector) reaches the fifth-best exact cosine, less 1e-6, so ties at the fifth
 * place cannot cost an exact store recall (as ann-benchmarks does with distances). Decay is off
 * (half-life 0): the ranking is by similarity alone, which is what an exact scan can check.
 */
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createLogger, migrate, repoRoot } from "@gantry/kit";
import { startStack } from "@gantry/infra/runner/stack.ts";
import { LexicalHashEmbedder } from "../../services/memory/src/embed/lexical.ts";
import { DIMENSIONS } from "../../services/memory/src/embed/types.ts";
import { PostgresStore } from "../../services/memory/src/store/postgres.ts";
import { WeaviateStore } from "../../services/memory/src/store/weaviate.ts";
import type { Hit, StoredMemory } from "../../services/memory/src/store/types.ts";
import {
  startWeaviate,
  weaviateUnavailable,
  type WeaviateEndpoint,
} from "../../services/memory/src/testing/weaviate-server.ts";
import {
  assertSeeded,
  Corpus,
  createCollectionRow,
  floorSearch,
  InFlight,
  insertBatch,
  MEMORY_TENANT,
  memoryBatch,
  SEARCH_LIMIT,
  SEED_BATCH,
  stats,
} from "./memory.ts";
import type { ScaleCurve, ScalePart, ScalePoint } from "./scale-curve.ts";

const COLLECTION = "scale";
/** Queries per size: each is timed once per store and scored for recall. */
const QUERIES = 100;
const WARMUP = 10;
/** A Weaviate import projected to take longer than this is not started (the size is skipped). */
const WEAVIATE_BUDGET_SEC = 20 * 60;
/**
 * Largest collection measured: the exact scan's copy of the vectors is 3 KiB a memory (2.9 GiB at
 * 10⁶, 29 GiB at 10⁷, more than the bench machine has).
 */
const MAX_ROWS = 1_000_000;

const fmtRows = (n: number) => n.toLocaleString("en-US");

/** Dot product of `q` with row `row` of `matrix` (cosine: every vector is unit length). */
function cosine(matrix: Float32Array, row: number, q: Float32Array): number {
  let s = 0;
  for (let i = 0, o = row * q.length; i < q.length; i++) s += q[i] * matrix[o + i];
  return s;
}

interface Truth {
  /** Positive exact top-5 cosines are what a store can return (both drop similarity ≤ 0). */
  relevant: number;
  /** The `relevant`-th best exact cosine. */
  threshold: number;
}

/** Share of the exact top 5 among the hits, averaged over the queries that have any. */
function recallAt5(
  hits: Hit[][],
  truths: Truth[],
  vectors: Float32Array[],
  matrix: Float32Array,
  rowOf: Map<string, number>,
): number {
  let sum = 0;
  let counted = 0;
  for (const [i, t] of truths.entries()) {
    if (t.relevant === 0) continue;
    let found = 0;
    for (const h of hits[i]) {
      const row = rowOf.get(h.id);
      if (row === undefined) throw new Error(`a store returned ${h.id}, which the bench did not seed`);
      if (cosine(matrix, row, vectors[i]) >= t.threshold - 1e-6) found++;
    }
    sum += Math.min(found, t.relevant) / t.relevant;
    counted++;
  }
  return counted ? sum / counted : 0;
}

/** Times `search` on every query after {@link WARMUP} untimed ones; the point and the hits. */
async function timeSearches(
  rows: number,
  vectors: Float32Array[],
  search: (q: Float32Array) => Promise<Hit[]>,
): Promise<{ point: ScalePoint; hits: Hit[][] }> {
  for (let i = 0; i < WARMUP; i++) await search(vectors[i % vectors.length]);
  const ms: number[] = [];
  const hits: Hit[][] = [];
  for (const q of vectors) {
    const t = performance.now();
    hits.push(await search(q));
    ms.push(performance.now() - t);
  }
  const s = stats(ms);
  return { point: { rows, p50: s.p50, p99: s.p99, samples: s.n }, hits };
}

/** The memories of a batch range as the stores hold them (for the Weaviate import). */
interface Kept {
  ids: string[];
  texts: string[];
  metas: string[];
  times: number[];
}

export const memoryScale: ScalePart = async ({ sizes: asked, log }) => {
  const sizes = asked.filter((n) => n <= MAX_ROWS);
  const tooLarge = asked
    .filter((n) => n > MAX_ROWS)
    .map((rows) => ({
      rows,
      why: `measured up to ${fmtRows(MAX_ROWS)} memories: the exact scan's copy of the vectors alone would take ${((rows * DIMENSIONS * 4) / 2 ** 30).toFixed(0)} GiB`,
    }));
  const quiet = createLogger("bench-memory-scale", "silent");
  const embedder = new LexicalHashEmbedder();
  const stack = await startStack({ port: 0, quiet: true, services: [], gateways: 0 });
  const pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 4 });
  // Postgres stops at teardown; an idle client's "terminating connection" is not an error here.
  pool.on("error", () => {});
  let weaviate: WeaviateEndpoint | undefined;
  let wstore: WeaviateStore | undefined;
  try {
    await migrate(pool, "memory", path.join(repoRoot(), "services/memory/prisma/migrations"));
    const unavailable = weaviateUnavailable();
    if (!unavailable) {
      weaviate = await startWeaviate();
      wstore = new WeaviateStore({ url: weaviate.url, grpcPort: weaviate.grpcPort, index: "hnsw", log: quiet });
      await wstore.start();
    }

    const max = sizes[sizes.length - 1];
    // The exact scan's copy of every vector, row-major in seeding order (3 GiB at 10⁶).
    const matrix = new Float32Array(max * DIMENSIONS);
    const rowOf = new Map<string, number>();
    // Query j at size n is drawn from the memory at row ⌊(j + ½) · n / QUERIES⌋: spread over the collection.
    const queryRow = (n: number, j: number) => Math.floor(((j + 0.5) * n) / QUERIES);
    const wantedTexts = new Set(sizes.flatMap((n) => Array.from({ length: QUERIES }, (_, j) => queryRow(n, j))));
    const texts = new Map<number, string>();

    const corpus = new Corpus(30_000);
    const now = Date.now();
    await createCollectionRow(pool, COLLECTION, embedder.model);
    let seeded = 0;
    let imported = 0;
    /** Objects per second of the last Weaviate import. */
    let weaviateRate = 0;
    let rateFrom = 0;
    let weaviateSkipReason: string | undefined = unavailable;
    let rateSkipped = false;

    const pgPoints: ScalePoint[] = [];
    const pgSkipped: { rows: number; why: string }[] = [];
    const wvPoints: ScalePoint[] = [];
    const wvSkipped: { rows: number; why: string }[] = [];

    for (const [sizeIndex, n] of sizes.entries()) {
      // Once a size is skipped every larger one is too (the collection grows), each with its own projection.
      if ((!weaviateSkipReason || rateSkipped) && weaviateRate > 0) {
        const projected = (n - imported) / weaviateRate;
        if (rateSkipped || projected > WEAVIATE_BUDGET_SEC) {
          rateSkipped = true;
          weaviateSkipReason =
            `growing the collection from ${fmtRows(imported)} to ${fmtRows(n)} objects at the ${Math.round(weaviateRate)} ` +
            `objects/s measured from ${fmtRows(rateFrom)} to ${fmtRows(imported)} would take about ` +
            `${Math.round(projected / 60)} min (budget ${WEAVIATE_BUDGET_SEC / 60} min; machine load average ` +
            `${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores)`;
        }
      }
      const toWeaviate = wstore && !weaviateSkipReason;

      // Postgres: embed and insert the rows up to n, keeping what the Weaviate import needs.
      log(`memory.search ${fmtRows(n)}: seeding Postgres from ${fmtRows(seeded)} memories`);
      const kept: Kept = { ids: [], texts: [], metas: [], times: [] };
      const keptFrom = seeded;
      const t0 = performance.now();
      const inFlight = new InFlight(2);
      while (seeded < n) {
        const b = await memoryBatch(corpus, embedder, seeded, Math.min(SEED_BATCH, n - seeded), now);
        for (const [i, v] of b.vectors.entries()) {
          matrix.set(v, (seeded + i) * DIMENSIONS);
          rowOf.set(b.ids[i], seeded + i);
          if (wantedTexts.has(seeded + i)) texts.set(seeded + i, b.texts[i]);
        }
        if (toWeaviate) {
          kept.ids.push(...b.ids);
          kept.texts.push(...b.texts);
          kept.metas.push(...b.metas);
          kept.times.push(...b.times);
        }
        await inFlight.add(insertBatch(pool, COLLECTION, embedder.model, b));
        seeded += b.ids.length;
      }
      await inFlight.drain();
      await assertSeeded(pool, COLLECTION, n);
      const pgSeedSec = (performance.now() - t0) / 1000;
      log(`  Postgres seeded to ${fmtRows(n)} in ${pgSeedSec.toFixed(1)} s (embedding included)`);

      const qc = new Corpus(31_000 + sizeIndex);
      const queries = Array.from({ length: QUERIES }, (_, j) => qc.queryFor(texts.get(queryRow(n, j))!));
      const vectors = await embedder.embed(queries, "query");
      const truths: Truth[] = vectors.map((q) => {
        const scores = [...floorSearch(matrix, n, q, SEARCH_LIMIT).scores].filter((s) => s > 0);
        return { relevant: scores.length, threshold: scores[scores.length - 1] ?? Infinity };
      });
      const searchOpts = () => ({ limit: SEARCH_LIMIT, now: Date.now(), halfLifeMs: 0 });

      // The Postgres store's first search loads the partition; then the timed searches.
      const store = new PostgresStore({ pool, log: quiet, checkIntervalMs: 0 });
      await store.start();
      try {
        const t1 = performance.now();
        await store.search(MEMORY_TENANT, COLLECTION, vectors[0], searchOpts());
        const loadMs = performance.now() - t1;
        const { point, hits } = await timeSearches(n, vectors, (q) =>
          store.search(MEMORY_TENANT, COLLECTION, q, searchOpts()),
        );
        const recall = recallAt5(hits, truths, vectors, matrix, rowOf);
        const rssMiB = process.memoryUsage().rss / 2 ** 20;
        pgPoints.push({ ...point, extra: { recallAt5: recall, seedSec: pgSeedSec, loadMs, rssMiB } });
        log(
          `  Postgres store: p50 ${point.p50.toFixed(2)} ms, p99 ${point.p99.toFixed(2)} ms, recall@5 ${recall.toFixed(3)}, ` +
            `partition load ${loadMs.toFixed(0)} ms, bench RSS ${rssMiB.toFixed(0)} MiB`,
        );
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        pgSkipped.push({ rows: n, why: `the store could not hold the partition: ${err.message}` });
        log(`  Postgres store: skipped (${err.message})`);
      } finally {
        await store.close();
      }

      if (!wstore) continue;
      if (weaviateSkipReason) {
        wvSkipped.push({ rows: n, why: weaviateSkipReason });
        log(`  Weaviate: skipped (${weaviateSkipReason})`);
        continue;
      }
      log(`  importing ${fmtRows(kept.ids.length)} objects into Weaviate (HNSW)`);
      const t2 = performance.now();
      await importIntoWeaviate(wstore, kept, keptFrom, matrix, embedder.model);
      const wvSeedSec = (performance.now() - t2) / 1000;
      weaviateRate = kept.ids.length / wvSeedSec;
      rateFrom = imported;
      imported = n;
      log(`  Weaviate imported to ${fmtRows(n)} in ${wvSeedSec.toFixed(1)} s (${Math.round(weaviateRate)} objects/s)`);
      const { point, hits } = await timeSearches(n, vectors, (q) =>
        wstore!.search(MEMORY_TENANT, COLLECTION, q, searchOpts()),
      );
      const recall = recallAt5(hits, truths, vectors, matrix, rowOf);
      wvPoints.push({ ...point, extra: { recallAt5: recall, seedSec: wvSeedSec, importPerSec: weaviateRate } });
      log(
        `  Weaviate store: p50 ${point.p50.toFixed(2)} ms, p99 ${point.p99.toFixed(2)} ms, recall@5 ${recall.toFixed(3)}`,
      );
    }

    const seeding =
      "one collection of one tenant grown to each size in turn with the memory group's synthetic notes " +
      "(Zipf vocabulary), embedded with the service's lexical-hash-v1 embedder (768 dimensions; fast to " +
      `seed, not a language model); ${QUERIES} queries per size (2–4 words of a stored note), ` +
      `${WARMUP} untimed first; decay off; recall@5 against an exact cosine scan of the same vectors`;
    const curves: ScaleCurve[] = [
      {
        id: "memory.search:postgres",
        label: "memory.search, Postgres store (exact scan)",
        unit: "ms",
        note:
          `PostgresStore.search in process with the query vector given (no gRPC, no query embedding), ` +
          `partition loaded once (loadMs) and held in memory; rows bulk-inserted into memory.memories; ${seeding}`,
        expected: "O(n)",
        points: pgPoints,
        ...(pgSkipped.length || tooLarge.length ? { skipped: [...pgSkipped, ...tooLarge] } : {}),
      },
      {
        id: "memory.search:weaviate",
        label: "memory.search, Weaviate store (HNSW)",
        unit: "ms",
        note:
          `WeaviateStore.search in process against a local weaviate-server (2 threads), cosine HNSW with ` +
          `Weaviate's defaults; objects imported with the batch API in the store's own layout, 1,000 per ` +
          `request, 2 in flight (seedSec, importPerSec); ${seeding}`,
        expected: "O(log n)",
        points: wvPoints,
        ...(wvSkipped.length || tooLarge.length || !wstore
          ? {
              skipped: [
                ...(wstore ? wvSkipped : sizes.map((rows) => ({ rows, why: unavailable ?? "no Weaviate" }))),
                ...tooLarge,
              ],
            }
          : {}),
      },
    ];
    return curves;
  } finally {
    await wstore?.close().catch(() => {});
    await weaviate?.stop();
    await pool.end();
    await stack.stop();
  }
};

/**
 * Imports rows `from …` into the Weaviate store's collection of {@link MEMORY_TENANT}. The store
 * saves one object per memory.save; there is no bulk path, so the batches go through the store's
 * own tenant handle, uuid and property layout (private members, reached by name), which makes the
 * objects exactly those memory.save would have written.
 */
// biome-ignore-start lint/complexity/useLiteralKeys: the store's private members, reached by name on purpose (above)
async function importIntoWeaviate(
  store: WeaviateStore,
  kept: Kept,
  from: number,
  matrix: Float32Array,
  model: string,
): Promise<void> {
  const h = (await store["handle"](MEMORY_TENANT, COLLECTION, true))!;
  const inFlight = new InFlight(2);
  for (let start = 0; start < kept.ids.length; start += SEED_BATCH) {
    const objects = [];
    for (let i = start; i < Math.min(start + SEED_BATCH, kept.ids.length); i++) {
      const memory: StoredMemory = {
        id: kept.ids[i],
        collection: COLLECTION,
        text: kept.texts[i],
        metadata: JSON.parse(kept.metas[i]),
        vertical: null,
        model,
        dimensions: DIMENSIONS,
        createdAt: kept.times[i],
        updatedAt: kept.times[i],
      };
      if (i === 0) await store["ensureProps"](COLLECTION, memory.metadata);
      const row = from + i;
      objects.push({
        id: store["uuid"](memory.id),
        properties: store["properties"](memory),
        vectors: Array.from(matrix.subarray(row * DIMENSIONS, (row + 1) * DIMENSIONS)),
      });
    }
    await inFlight.add(
      h.data.insertMany(objects as unknown as Parameters<typeof h.data.insertMany>[0]).then((res) => {
        if (res.hasErrors)
          throw new Error(`Weaviate refused objects: ${JSON.stringify(Object.values(res.errors)[0]).slice(0, 300)}`);
      }),
    );
  }
  await inFlight.drain();
}
// biome-ignore-end lint/complexity/useLiteralKeys: (see the start)
