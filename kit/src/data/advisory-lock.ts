/**
 * @module kit/data/advisory-lock
 * Work that must be single across every replica of a service (a help-centre build of one product,
 * a sweep step that must not interleave): a Postgres session advisory lock on a name, held on one
 * pooled connection while `fn` runs. Another replica asking for the same name waits; a process that
 * dies releases it with its connection, so a crash never leaves the work locked. An in-process lock
 * would only keep one replica's callers apart.
 *
 * @example
 * await withAdvisoryLock(pool, `help-centre:${tenant}:${product}`, () => build(tenant, product));
 */
import type pg from "pg";

export async function withAdvisoryLock<T>(pool: pg.Pool, name: string, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let locked = false;
  try {
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [name]);
    locked = true;
    return await fn();
  } finally {
    if (locked) await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [name]).catch(() => {});
    client.release();
  }
}
