/**
 * RFC 6962 hashing against independently computed values, and inclusion proofs for every leaf of
 * trees of every size up to 17 (balanced and unbalanced), consistency proofs between every pair of
 * sizes up to 40, plus proofs that must fail.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import {
  consistencyProof,
  inclusionPath,
  leafHash,
  MerkleLevels,
  nodeHash,
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
