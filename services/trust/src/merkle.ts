/**
 * @module trust/merkle
 * RFC 6962 / RFC 9162 Merkle tree hashing, the Certificate-Transparency way: a leaf is
 * SHA-256(0x00 ‖ data), an interior node SHA-256(0x01 ‖ left ‖ right), a tree of n leaves splits at
 * the largest power of two below n. Inclusion proofs are the audit path of RFC 9162 §2.1.3.1 and
 * are checked with the algorithm of §2.1.3.2. Consistency proofs (that the tree of `first` leaves is
 * a prefix of the tree of `second` leaves) are made as in §2.1.4.1 and checked as in §2.1.4.2. Pure
 * functions over raw 32-byte hashes, shared by the service and the offline verifier
 * (scripts/verify.ts).
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

/** RFC 9162's "right-shift both fn and sn equally" while `more(fn)` holds. */
function shiftWhile(fn: number, sn: number, more: (fn: number) => boolean): [number, number] {
  let [f, s] = [fn, sn];
  while (more(f)) [f, s] = [Math.floor(f / 2), Math.floor(s / 2)];
  return [f, s];
}

/** "until either LSB(fn) is set or fn is 0" (§2.1.3.2 step 4, §2.1.4.2 step 6). */
const untilOddOrZero = (fn: number) => fn % 2 === 0 && fn !== 0;

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
      [fn, sn] = shiftWhile(fn, sn, untilOddOrZero);
    } else {
      r = nodeHash(r, p);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && r.equals(Buffer.from(root));
}

/** MTH of the `size` leaves from `start`: how a consistency proof reads the tree. */
type SubtreeHash = (start: number, size: number) => Buffer;

/**
 * SUBPROOF(m, D[start:start+n], whole) of RFC 9162 §2.1.4.1: the hashes that, with the root of the
 * first `m` leaves of the range, give the root of the range. `whole` is true while the first `m`
 * leaves are the old tree itself (whose root the verifier already holds).
 */
function subproof(m: number, start: number, n: number, whole: boolean, mth: SubtreeHash): Buffer[] {
  if (m === n) return whole ? [] : [mth(start, n)];
  const k = split(n);
  return m <= k
    ? [...subproof(m, start, k, whole, mth), mth(start + k, n - k)]
    : [...subproof(m - k, start + k, n - k, false, mth), mth(start, k)];
}

function checkSizes(first: number, second: number, available: number): void {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second)
    throw new RangeError(`no consistency proof from size ${first} to size ${second}`);
  if (second > available) throw new RangeError(`size ${second} is beyond a tree of ${available}`);
}

/** PROOF(first, D[second]): the consistency proof from the first `first` leaves to the first `second`. */
export function consistencyProof(first: number, second: number, leaves: readonly Uint8Array[]): Buffer[] {
  checkSizes(first, second, leaves.length);
  if (first === 0 || first === second) return [];
  return subproof(first, 0, second, true, (start, size) => rootHash(leaves.slice(start, start + size)));
}

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows that the tree of `first` leaves with root `firstRoot` is
 * a prefix of the tree of `second` leaves with root `secondRoot` (the log only grew). An empty tree
 * is a prefix of every tree; a tree is consistent with itself only with an empty proof and the same
 * root.
 */
export function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) return false;
  if (first === 0) return proof.length === 0;
  if (first === second) return proof.length === 0 && Buffer.from(firstRoot).equals(Buffer.from(secondRoot));
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  [fn, sn] = shiftWhile(fn, sn, (f) => f % 2 === 1);
  let fr: Buffer = Buffer.from(path[0]!);
  let sr: Buffer = Buffer.from(path[0]!);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      [fn, sn] = shiftWhile(fn, sn, untilOddOrZero);
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [Math.floor(fn / 2), Math.floor(sn / 2)];
  }
  return sn === 0 && fr.equals(Buffer.from(firstRoot)) && sr.equals(Buffer.from(secondRoot));
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

  /**
   * MTH of `size` leaves from `start`, where the range is a subtree of RFC 6962's split: an aligned
   * power of two is one stored node; a range that is not (only at a tree's right edge) splits again.
   */
  private subtree(start: number, size: number): Buffer {
    if (isPowerOfTwo(size) && start % size === 0) return this.levels[Math.log2(size)]![start / size]!;
    const k = split(size);
    return nodeHash(this.subtree(start, k), this.subtree(start + k, size - k));
  }

  /** The root of the tree of the first `size` leaves: the log as it was at that size. */
  rootAt(size: number): Buffer {
    checkSizes(0, size, this.size);
    return size === 0 ? rootHash([]) : this.subtree(0, size);
  }

  /** The consistency proof from the tree of `first` leaves to the tree of `second` (default: all). */
  consistency(first: number, second = this.size): Buffer[] {
    checkSizes(first, second, this.size);
    if (first === 0 || first === second) return [];
    return subproof(first, 0, second, true, (start, size) => this.subtree(start, size));
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
