/**
 * @module infra/testing/wal
 * What Postgres writes to its WAL, for the cost-per-call scripts: bytes do not depend on how busy
 * the machine is, so they show a change that CPU figures on a shared machine would hide.
 */
import type pg from "pg";

type Db = Pick<pg.Pool, "query">;

/** The WAL position now: what Postgres has written is the difference of two. */
export async function walAt(db: Db): Promise<{ lsn: string; bytes: number }> {
  const { rows } = await db.query<{ lsn: string; bytes: number }>(
    `SELECT pg_current_wal_lsn()::text AS lsn, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 AS bytes`,
  );
  return rows[0];
}

/**
 * WAL bytes per call between two positions over `calls` calls, by the table or index each record
 * names (pg_walinspect), largest first, as "relation bytes, …".
 */
export async function walByRelation(db: Db, from: string, to: string, calls: number): Promise<string> {
  await db.query("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
  const { rows } = await db.query<{ rel: string; bytes: number }>(
    `SELECT COALESCE(c.relname, w.resource_manager || ' ' || w.record_type) AS rel, sum(w.record_length)::float8 AS bytes
       FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) w
       LEFT JOIN pg_class c ON c.relfilenode::text = substring(w.block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')
      GROUP BY 1 ORDER BY 2 DESC`,
    [from, to],
  );
  return rows.map((r) => `${r.rel} ${(r.bytes / calls).toFixed(0)}`).join(", ");
}
