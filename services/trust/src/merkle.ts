/**
 * @module trust/merkle
 * RFC 6962 / RFC 9162 Merkle tree hashing, the Certificate-Transparency way: a leaf is
 * SHA-256(0x00 ‖ data), an interior node SHA-256(0x01 ‖ left ‖ right), a tree of n leaves splits at
 * the largest power of two below n. Inclusion proofs are the audit path of RFC 9162 §2.1.3.1 and
 * are checked with the algorithm of §2.1.3.2. Pure functions over raw 32-byte hashes, shared by the
 * service and the offline verifier (scripts/verify.ts).
 */
import { createHash } from "node:crypto";

export function leafHash(data: Uint8Array | string): Buffer {
  return createHash("sha256")
    .update(Buffer.from([0]))
    .update(data)
    .digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash("sha256")
    .update(Buffer.from([1]))
    .update(left)
    .update(right)
    .digest();
}

/** Largest power of two strictly below n (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[n]) of leaf hashes; the empty tree's root is SHA-256 of nothing. */
export function rootHash(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return createHash("sha256").digest();
  if (leaves.length === 1) return Buffer.from(leaves[0]!);
  const k = split(leaves.length);
  return nodeHash(rootHash(leaves.slice(0, k)), rootHash(leaves.slice(k)));
}

/** PATH(m, D[n]): the audit path of leaf `index`, leaf to root. */
export function inclusionPath(index: number, leaves: readonly Uint8Array[]): Buffer[] {
  if (index < 0 || index >= leaves.length) throw new RangeError(`leaf ${index} is outside a tree of ${leaves.length}`);
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  return index < k
    ? [...inclusionPath(index, leaves.slice(0, k)), rootHash(leaves.slice(k))]
    : [...inclusionPath(index - k, leaves.slice(k)), rootHash(leaves.slice(0, k))];
}

/** RFC 9162 §2.1.3.2: whether `path` proves leaf `index` of a tree of `size` leaves has root `root`. */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  path: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(Buffer.from(root));
}

/**
 * The whole tree as levels (leaves first, root last), built once in O(n) so that any number of
 * audit paths cost O(log n) each. Pairs are hashed left to right and a lone last node is carried up
 * unchanged: the same tree as RFC 6962's recursive split (merkle.test.ts checks they agree).
 */
export class MerkleLevels {
  readonly levels: Buffer[][];

  constructor(leaves: readonly Buffer[]) {
    const levels: Buffer[][] = [[...leaves]];
    while (levels.at(-1)!.length > 1) {
      const below = levels.at(-1)!;
      const up: Buffer[] = [];
      for (let i = 0; i < below.length; i += 2)
        up.push(i + 1 < below.length ? nodeHash(below[i]!, below[i + 1]!) : below[i]!);
      levels.push(up);
    }
    this.levels = levels;
  }

  get size(): number {
    return this.levels[0]!.length;
  }

  root(): Buffer {
    return this.size === 0 ? rootHash([]) : this.levels.at(-1)![0]!;
  }

  path(index: number): Buffer[] {
    if (index < 0 || index >= this.size) throw new RangeError(`leaf ${index} is outside a tree of ${this.size}`);
    const out: Buffer[] = [];
    let i = index;
    for (const level of this.levels.slice(0, -1)) {
      const sibling = i % 2 === 1 ? i - 1 : i + 1;
      if (sibling < level.length) out.push(level[sibling]!);
      i = Math.floor(i / 2);
    }
    return out;
  }
}
