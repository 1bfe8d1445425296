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
import { createHash, hash } from "node:crypto";

const LEAF_PREFIX = Buffer.from([0]);

/**
 * One-shot `crypto.hash` over the prefixed bytes, not a `createHash` chain: a Hash object and three
 * native calls a hash cost more than the copy (README *Trust's own CPU a run call*). A string's
 * prefix is "\0", whose UTF-8 is the 0x00 byte.
 */
export function leafHash(data: Uint8Array | string): Buffer {
  return hash("sha256", typeof data === "string" ? `\0${data}` : Buffer.concat([LEAF_PREFIX, data]), "buffer");
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(1 + left.length + right.length);
  bytes[0] = 1;
  bytes.set(left, 1);
  bytes.set(right, 1 + left.length);
  return hash("sha256", bytes, "buffer");
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

/** Where a perfect subtree's hash is kept: `level` k holds the MTH of leaves [idx·2^k, (idx+1)·2^k). */
export interface NodeKey {
  level: number;
  idx: number;
}

/**
 * A tree of `size` leaves read through the hashes of its perfect subtrees (`node`): every MTH a
 * root, audit path or consistency proof needs is one stored node, or (only at the right edge) a
 * hash of O(log n) of them. Whatever holds the nodes (arrays here, Postgres in the service) gives
 * the same tree as RFC 6962's recursive split (merkle.test.ts checks they agree).
 */
export abstract class NodeTree {
  readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  protected abstract node(level: number, idx: number): Buffer;

  /** MTH of `size` leaves from `start`, where the range is a subtree of RFC 6962's split. */
  private subtree(start: number, size: number): Buffer {
    if (isPowerOfTwo(size) && start % size === 0) return this.node(Math.log2(size), start / size);
    const k = split(size);
    return nodeHash(this.subtree(start, k), this.subtree(start + k, size - k));
  }

  root(): Buffer {
    return this.rootAt(this.size);
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

  /** PATH(index, D[size]): the audit path of leaf `index`, leaf to root. */
  path(index: number): Buffer[] {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.size)
      throw new RangeError(`leaf ${index} is outside a tree of ${this.size}`);
    const out: Buffer[] = [];
    let [i, start, n] = [index, 0, this.size];
    while (n > 1) {
      const k = split(n);
      if (i < k) {
        out.push(this.subtree(start + k, n - k));
        n = k;
      } else {
        out.push(this.subtree(start, k));
        [i, start, n] = [i - k, start + k, n - k];
      }
    }
    return out.reverse();
  }
}

/**
 * The nodes `use` reads from a tree of `size` leaves: run it once against this to learn which
 * to fetch (the operations' control flow depends on sizes and indexes only, never on hashes).
 */
export function nodesRead(size: number, use: (tree: NodeTree) => void): NodeKey[] {
  const keys = new Map<string, NodeKey>();
  const zero = Buffer.alloc(32);
  use(
    new (class extends NodeTree {
      protected node(level: number, idx: number): Buffer {
        keys.set(`${level}/${idx}`, { level, idx });
        return zero;
      }
    })(size),
  );
  return [...keys.values()];
}

/**
 * The nodes a tree of `size` leaves gains when `leaves` are appended after its first `size`
 * leaves, given `frontier`: the nodes of the tree at `size` that new nodes pair with (see
 * {@link frontierOf}). O(k + log n) for k leaves.
 */
export function appendNodes(
  size: number,
  frontier: ReadonlyMap<string, Buffer>,
  leaves: readonly Buffer[],
): (NodeKey & { hash: Buffer })[] {
  const known = new Map(frontier);
  const out: (NodeKey & { hash: Buffer })[] = [];
  leaves.forEach((leaf, j) => {
    let [level, idx, hash] = [0, size + j, leaf];
    for (;;) {
      known.set(`${level}/${idx}`, hash);
      out.push({ level, idx, hash });
      if (idx % 2 === 0) break;
      const left = known.get(`${level}/${idx - 1}`);
      if (!left) throw new Error(`node ${level}/${idx - 1} is missing from the frontier`);
      hash = nodeHash(left, hash);
      [level, idx] = [level + 1, Math.floor(idx / 2)];
    }
  });
  return out;
}

/** The perfect subtrees a tree of `size` leaves ends with: one per set bit of `size`, the right edge. */
export function frontierOf(size: number): NodeKey[] {
  const out: NodeKey[] = [];
  for (let level = 0; 2 ** level <= size; level++) {
    const count = Math.floor(size / 2 ** level);
    if (count % 2 === 1) out.push({ level, idx: count - 1 });
  }
  return out;
}

/**
 * The whole tree in memory as levels (leaves first, root last), built in O(n): for tests and the
 * offline verifier's fixtures. Pairs are hashed left to right and a lone last node is carried up
 * unchanged, so every perfect subtree is one entry of its level.
 */
export class MerkleLevels extends NodeTree {
  readonly levels: Buffer[][];

  constructor(leaves: readonly Buffer[]) {
    super(leaves.length);
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

  protected node(level: number, idx: number): Buffer {
    return this.levels[level]![idx]!;
  }
}
