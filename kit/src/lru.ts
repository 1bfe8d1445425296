/**
 * @module kit/lru
 * A map that holds at most `max` entries and, when full, drops the one used longest ago. For caches
 * in a process's memory: every one must have a size, since a process serves callers who choose the
 * keys (tool ids, key hashes, scope lists) and may send millions of distinct ones.
 *
 * @example
 * const validators = new Lru<string, Check>(1_000);
 * const check = validators.get(id) ?? validators.set(id, compile(id));
 */
export class Lru<K, V> {
  // A Map iterates in insertion order, so re-inserting on use keeps the oldest first.
  private readonly entries = new Map<K, V>();
  readonly max: number;

  constructor(max: number) {
    if (!(max >= 1)) throw new RangeError(`an Lru holds at least 1 entry (got ${max})`);
    this.max = max;
  }

  /** The value, marked as just used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores `value` as the newest entry, dropping the oldest when full; returns `value`. */
  set(key: K, value: V): V {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as K);
    return value;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Entries, oldest first (for eviction by content). */
  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }
}
