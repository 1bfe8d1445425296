/**
 * @module keys/audit-retention
 * Audit records are kept `AUDIT_RETENTION_DAYS` (default 365) and then deleted, so `audit_records`
 * holds one retention window of calls however long a deployment runs: its indexes stop growing, and
 * with them the cost of each audit insert (docs/benchmarks.md, the `audit.insert` scale curve).
 *
 * Retention rather than partitioning: the request id stays the primary key on its own (a partitioned
 * table's key must include the partition column), so a redelivered batch is still deduplicated by
 * `ON CONFLICT (request_id)`, and row-level security needs no per-partition policies.
 *
 * The sweep deletes oldest first in batches of `AUDIT_SWEEP_BATCH` rows, each batch its own short
 * statement, so it never holds locks long nor builds one huge transaction. Every replica runs it:
 * `FOR UPDATE SKIP LOCKED` makes replicas sweeping at the same moment take different rows instead
 * of waiting on each other, and a row deleted twice is impossible. It runs in system scope: it
 * deletes rows of every tenant.
 */
import type pg from "pg";
import { asSystem, type Clock, type Logger } from "@gantry/kit";
import { SCHEMA } from "./context.ts";

/** Rows per DELETE: large enough to keep up with any call rate, small enough to stay a brief statement. */
export const AUDIT_SWEEP_BATCH = 5_000;
/** How often each replica sweeps; between sweeps at most an hour of calls outlives its retention. */
export const AUDIT_SWEEP_EVERY_MS = 3600_000;
const DAY_MS = 86_400_000;

const DELETE_BATCH = `
DELETE FROM "${SCHEMA}"."audit_records" WHERE request_id IN (
  SELECT request_id FROM "${SCHEMA}"."audit_records" WHERE at < $1 ORDER BY at LIMIT $2 FOR UPDATE SKIP LOCKED)`;

/** Deletes audit records older than `cutoff`, batch by batch; returns how many this caller deleted. */
export async function sweepAuditRecords(
  pool: pg.Pool,
  cutoff: Date,
  batch = AUDIT_SWEEP_BATCH,
  running: () => boolean = () => true,
): Promise<number> {
  let deleted = 0;
  while (running()) {
    const { rowCount } = await pool.query(DELETE_BATCH, [cutoff, batch]);
    deleted += rowCount ?? 0;
    // A short batch means nothing old is left, or another replica holds the rest.
    if ((rowCount ?? 0) < batch) break;
  }
  return deleted;
}

/** Sweeps at start and then every `everyMs`; the cutoff follows the service's clock. */
export function startAuditRetention(
  pool: pg.Pool,
  opts: { days: number; now: Clock; log: Logger; everyMs?: number; batch?: number },
): { stop: () => Promise<void> } {
  let running = true;
  let current: Promise<unknown> | undefined;
  const sweep = () => {
    // One sweep at a time per process: a sweep still deleting a backlog keeps going.
    if (current || !running) return;
    current = asSystem(() =>
      sweepAuditRecords(pool, new Date(opts.now() - opts.days * DAY_MS), opts.batch, () => running),
    )
      .then((n) => n > 0 && opts.log.info({ deleted: n, retentionDays: opts.days }, "old audit records deleted"))
      .catch(
        (err) => running && opts.log.warn({ err: String(err) }, "audit retention sweep failed; the next one retries"),
      )
      .finally(() => (current = undefined));
  };
  const first = setTimeout(sweep, 0);
  const timer = setInterval(sweep, opts.everyMs ?? AUDIT_SWEEP_EVERY_MS);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      running = false;
      clearTimeout(first);
      clearInterval(timer);
      await current;
    },
  };
}
