/**
 * The --scale run's memory.search part in miniature (200 and 1,000 memories) against a real
 * Postgres and, when a weaviate-server is found, a real Weaviate: the exact store finds the exact
 * top 5, HNSW nearly all of it at this size, and each curve has a point per size.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { weaviateUnavailable } from "../../services/memory/src/testing/weaviate-server.ts";
import { memoryScale } from "./scale-memory.ts";

test("memory.search scale curves: a point per size, recall@5 of 1 for the exact Postgres store", async () => {
  const lines: string[] = [];
  const curves = await memoryScale({ sizes: [200, 1_000], log: (l) => lines.push(l) });
  const byId = new Map(curves.map((c) => [c.id, c]));
  assert.deepEqual([...byId.keys()], ["memory.search:postgres", "memory.search:weaviate"]);

  const pg = byId.get("memory.search:postgres")!;
  assert.deepEqual(
    pg.points.map((p) => p.rows),
    [200, 1_000],
  );
  for (const p of pg.points) {
    assert.equal(p.extra?.recallAt5, 1, `exact store's recall@5 at ${p.rows}`);
    assert.ok(p.samples >= 100 && p.p50 > 0 && p.p99 >= p.p50, JSON.stringify(p));
    assert.ok(p.extra!.seedSec > 0 && p.extra!.loadMs > 0);
  }

  const wv = byId.get("memory.search:weaviate")!;
  const unavailable = weaviateUnavailable();
  if (unavailable) {
    assert.deepEqual(wv.points, []);
    assert.deepEqual(
      wv.skipped?.map((s) => s.rows),
      [200, 1_000],
    );
    return;
  }
  assert.deepEqual(
    wv.points.map((p) => p.rows),
    [200, 1_000],
    lines.join("\n"),
  );
  for (const p of wv.points) {
    // HNSW is approximate, but over a thousand vectors with Weaviate's default ef it misses little;
    // a bench that matched the wrong ids would score near 0.
    assert.ok(
      p.extra!.recallAt5 >= 0.9 && p.extra!.recallAt5 <= 1,
      `HNSW recall@5 at ${p.rows}: ${p.extra!.recallAt5}`,
    );
    assert.ok(p.extra!.importPerSec > 0);
  }
});
