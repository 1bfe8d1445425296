/**
 * RFC 6962 hashing against independently computed values, and inclusion proofs for every leaf of
 * trees of every size up to 17 (balanced and unbalanced), consistency proofs between every pair of
 * sizes up to 40, plus proofs that must fail; and the stored-node tree the service keeps (appends
 * in batches of any size, reading only the right edge) giving the same roots and proofs.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import {
  appendNodes,
  consistencyProof,
  frontierOf,
  inclusionPath,
  leafHash,
  MerkleLevels,
  NodeTree,
  nodeHash,
  nodesRead,
  rootHash,
  verifyConsistency,
  verifyInclusion,
} from "./merkle.ts";

const sha = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};

test("leaf and node hashes carry the RFC 6962 domain-separation prefixes", () => {
  assert.deepEqual(leafHash("a"), sha(Buffer.from([0]), Buffer.from("a")));
  const l = leafHash("l");
  const r = leafHash("r");
  assert.deepEqual(nodeHash(l, r), sha(Buffer.from([1]), l, r));
  // A string leaf is hashed as its UTF-8 bytes, whatever it holds; a node of plain Uint8Arrays alike.
  const text = 'é✓😀\u2028\u0000"x"';
  assert.deepEqual(leafHash(text), sha(Buffer.from([0]), Buffer.from(text)));
  assert.deepEqual(leafHash(new TextEncoder().encode(text)), leafHash(text));
  assert.deepEqual(nodeHash(new Uint8Array(l), new Uint8Array(r)), nodeHash(l, r));
  // The empty tree (RFC 6962 §2.1) and a known CT test vector: the root of the empty leaf.
  assert.equal(rootHash([]).toString("hex"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(leafHash("").toString("hex"), "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
});

test("a tree of three splits 2 + 1", () => {
  const [a, b, c] = ["a", "b", "c"].map((s) => leafHash(s)) as [Buffer, Buffer, Buffer];
  assert.deepEqual(rootHash([a, b, c]), nodeHash(nodeHash(a, b), c));
});

test("every leaf of every tree up to 17 has a proof that verifies, and only for its own position", () => {
  for (let size = 1; size <= 17; size++) {
    const leaves = Array.from({ length: size }, (_, i) => leafHash(`leaf ${i}`));
    const root = rootHash(leaves);
    for (let i = 0; i < size; i++) {
      const path = inclusionPath(i, leaves);
      assert.ok(verifyInclusion(i, size, leaves[i]!, path, root), `size ${size} leaf ${i}`);
      if (size > 1) {
        assert.ok(!verifyInclusion((i + 1) % size, size, leaves[i]!, path, root), `size ${size} leaf ${i} moved`);
        assert.ok(!verifyInclusion(i, size, leafHash("other"), path, root), `size ${size} leaf ${i} replaced`);
      }
    }
  }
});

test("a proof with a changed hash or for another root fails", () => {
  const leaves = Array.from({ length: 7 }, (_, i) => leafHash(`leaf ${i}`));
  const root = rootHash(leaves);
  const path = inclusionPath(3, leaves);
  const bad = path.map((h, i) => (i === 1 ? leafHash("x") : h));
  assert.ok(!verifyInclusion(3, 7, leaves[3]!, bad, root));
  assert.ok(!verifyInclusion(3, 7, leaves[3]!, path, rootHash(leaves.slice(0, 6))));
  assert.ok(!verifyInclusion(3, 7, leaves[3]!, path.slice(1), root));
  assert.ok(!verifyInclusion(7, 7, leaves[3]!, path, root));
});

test("the level-built tree equals RFC 6962's recursive definition: same roots and audit paths", () => {
  for (let size = 0; size <= 40; size++) {
    const leaves = Array.from({ length: size }, (_, i) => leafHash(`leaf ${i}`));
    const tree = new MerkleLevels(leaves);
    assert.deepEqual(tree.root(), rootHash(leaves), `root of ${size}`);
    for (let i = 0; i < size; i++) assert.deepEqual(tree.path(i), inclusionPath(i, leaves), `size ${size} leaf ${i}`);
  }
});

const leavesOf = (n: number, tag = "leaf") => Array.from({ length: n }, (_, i) => leafHash(`${tag} ${i}`));

test("the consistency proofs of RFC 9162 §2.1.4.1 for a tree of 7 (the RFC's example)", () => {
  const d = leavesOf(7);
  const mth = (a: number, b: number) => rootHash(d.slice(a, b));
  // PROOF(3, D[7]) = [c, d, g, l]; PROOF(4, D[7]) = [l]; PROOF(6, D[7]) = [i, j, k] (RFC 9162 §2.1.5).
  assert.deepEqual(consistencyProof(3, 7, d), [mth(2, 3), mth(3, 4), mth(0, 2), mth(4, 7)]);
  assert.deepEqual(consistencyProof(4, 7, d), [mth(4, 7)]);
  assert.deepEqual(consistencyProof(6, 7, d), [mth(4, 6), mth(6, 7), mth(0, 4)]);
});

test("consistency proofs between every pair of sizes up to 40 verify, and fail once anything changes", () => {
  const max = 40;
  const leaves = leavesOf(max);
  const levels = new MerkleLevels(leaves);
  for (let second = 0; second <= max; second++) {
    const secondRoot = rootHash(leaves.slice(0, second));
    assert.deepEqual(levels.rootAt(second), secondRoot, `root at ${second}`);
    for (let first = 0; first <= second; first++) {
      const firstRoot = rootHash(leaves.slice(0, first));
      const proof = consistencyProof(first, second, leaves);
      assert.deepEqual(levels.consistency(first, second), proof, `levels ${first} → ${second}`);
      assert.ok(verifyConsistency(first, second, firstRoot, secondRoot, proof), `${first} → ${second}`);
      if (first === 0) continue;
      assert.ok(!verifyConsistency(first, second, firstRoot, leafHash("other"), proof), `${first} → ${second}: root`);
      if (first < second) {
        assert.ok(
          !verifyConsistency(first, second, leafHash("other"), secondRoot, proof),
          `${first} → ${second}: old root`,
        );
        for (let i = 0; i < proof.length; i++) {
          const bad = proof.map((h, j) => (j === i ? leafHash("other") : h));
          assert.ok(!verifyConsistency(first, second, firstRoot, secondRoot, bad), `${first} → ${second}: hash ${i}`);
        }
        assert.ok(!verifyConsistency(first, second, firstRoot, secondRoot, proof.slice(1)), `${first}: shortened`);
        assert.ok(!verifyConsistency(first, second, firstRoot, secondRoot, [...proof, proof[0]!]), `${first}: longer`);
        // The log after a rewrite of one leaf of the old tree: no proof from the old checkpoint holds.
        const rewritten = leaves.slice(0, second);
        rewritten[first - 1] = leafHash("rewritten");
        const forged = rootHash(rewritten);
        assert.ok(
          !verifyConsistency(first, second, firstRoot, forged, consistencyProof(first, second, rewritten)),
          `${first} → ${second}: rewritten`,
        );
      }
    }
  }
});

test("consistency proofs refuse sizes outside the tree or backwards", () => {
  const levels = new MerkleLevels(leavesOf(5));
  assert.throws(() => levels.consistency(3, 6), RangeError);
  assert.throws(() => levels.consistency(4, 3), RangeError);
  assert.throws(() => levels.rootAt(6), RangeError);
  assert.ok(!verifyConsistency(4, 3, levels.rootAt(4), levels.rootAt(3), []));
  assert.ok(!verifyConsistency(3, 3, levels.rootAt(3), levels.rootAt(4), []));
});

/** The nodes the service would store, in a map, after appending `leaves` in batches of `sizes`. */
class MapTree extends NodeTree {
  readonly stored = new Map<string, Buffer>();
  constructor(leaves: readonly Buffer[], batches: readonly number[]) {
    super(leaves.length);
    let size = 0;
    for (const k of batches) {
      const frontier = new Map(frontierOf(size).map(({ level, idx }) => [`${level}/${idx}`, this.node(level, idx)]));
      for (const n of appendNodes(size, frontier, leaves.slice(size, size + k)))
        this.stored.set(`${n.level}/${n.idx}`, n.hash);
      size += k;
    }
  }
  protected node(level: number, idx: number): Buffer {
    const hash = this.stored.get(`${level}/${idx}`);
    if (!hash) throw new Error(`${level}/${idx} not stored`);
    return hash;
  }
}

test("appending in batches from the right edge stores the nodes of the same tree, proofs read O(log n) of them", () => {
  const leaves = leavesOf(300);
  const batchings = [Array(300).fill(1), [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 69], [256, 44], [300]];
  for (const batches of batchings) {
    const tree = new MapTree(leaves, batches);
    const levels = new MerkleLevels(leaves);
    assert.deepEqual(tree.root(), rootHash(leaves), `root after batches ${batches.slice(0, 4)}`);
    // Every perfect subtree is stored: 300 leaves, 150 + 75 + 37 + 18 + 9 + 4 + 2 + 1 above them.
    assert.equal(tree.stored.size, 300 + 150 + 75 + 37 + 18 + 9 + 4 + 2 + 1);
    for (const i of [0, 1, 127, 255, 256, 298, 299]) assert.deepEqual(tree.path(i), inclusionPath(i, leaves));
    for (const first of [1, 3, 256, 257, 299])
      assert.deepEqual(tree.consistency(first), levels.consistency(first), `consistency from ${first}`);
  }
  // What a proof reads is logarithmic: a path of a 2^20-leaf tree reads 20 nodes, a root at most 20.
  assert.equal(nodesRead(2 ** 20, (t) => t.path(12345)).length, 20);
  assert.ok(nodesRead(2 ** 20 - 1, (t) => t.root()).length <= 20);
  assert.ok(nodesRead(2 ** 20 - 1, (t) => t.consistency(777_777)).length <= 2 * 20);
});

test("an append without the right edge's nodes is refused rather than hashed against nothing", () => {
  assert.throws(() => appendNodes(3, new Map(), [leafHash("x")]), /missing from the frontier/);
});
