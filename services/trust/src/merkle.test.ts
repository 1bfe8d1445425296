/**
 * RFC 6962 hashing against independently computed values, and inclusion proofs for every leaf of
 * trees of every size up to 17 (balanced and unbalanced), plus proofs that must fail.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { inclusionPath, leafHash, MerkleLevels, nodeHash, rootHash, verifyInclusion } from "./merkle.ts";

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
