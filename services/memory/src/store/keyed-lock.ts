/**
 * @module memory/store/keyed-lock
 * Runs async work one at a time per key (a partition: tenant + collection) within this process,
 * in arrival order; a failed run does not block the next. Both stores serialise a partition's
 * writes with it (the Postgres store also takes a row lock, for other processes).
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.tails.set(key, tail);
    tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}
