/**
 * @module kit/data/transaction
 * One transaction on one pooled connection: BEGIN (with the given mode), `fn`, COMMIT; ROLLBACK on
 * any throw, the connection always released. For raw SQL; Prisma code uses `$transaction`.
 *
 * @example
 * const n = await inTransaction(pool, async (c) => (await c.query("UPDATE … RETURNING id")).rowCount, "READ WRITE");
 */
import type pg from "pg";

export async function inTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  mode = "",
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(mode ? `BEGIN ${mode}` : "BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
