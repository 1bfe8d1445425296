/**
 * The per-process log cache: it reads only leaves added since the last read, and never builds a
 * tree that skips a leaf whose append has not committed yet (a later read picks both up).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Context } from "./context.ts";
import { leafHash, rootHash } from "./merkle.ts";
import { LogCache } from "./receipts.ts";

function fakeDb(rows: { logIndex: number; leafHash: string }[], reads: number[]) {
  return {
    receipt: {
      findMany: async ({ where }: { where: { logIndex: { gte: number } } }) => {
        reads.push(where.logIndex.gte);
        return rows.filter((r) => r.logIndex >= where.logIndex.gte).sort((a, b) => a.logIndex - b.logIndex);
      },
    },
  } as unknown as Context["db"];
}

test("the cache reads only new leaves and keeps to the contiguous prefix", async () => {
  const leaf = (i: number) => leafHash(`r${i}`);
  const rows = [0, 1, 2].map((i) => ({ logIndex: i, leafHash: leaf(i).toString("hex") }));
  const reads: number[] = [];
  const db = fakeDb(rows, reads);
  const cache = new LogCache();
  assert.equal((await cache.tree({ db }, "acme")).size, 3);
  // Index 4 committed before index 3: the tree stops at 3 leaves, and its root is that of 0..2.
  rows.push({ logIndex: 4, leafHash: leaf(4).toString("hex") });
  const gap = await cache.tree({ db }, "acme");
  assert.equal(gap.size, 3);
  assert.deepEqual(gap.root(), rootHash([0, 1, 2].map(leaf)));
  rows.push({ logIndex: 3, leafHash: leaf(3).toString("hex") });
  const full = await cache.tree({ db }, "acme");
  assert.equal(full.size, 5);
  assert.deepEqual(full.root(), rootHash([0, 1, 2, 3, 4].map(leaf)));
  assert.deepEqual(reads, [0, 3, 3]);
});
