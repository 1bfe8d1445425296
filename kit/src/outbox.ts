/**
 * @module kit/outbox
 * Events after a database change, never lost and never sent for a change that rolled back: the
 * event is a row of the service's `outbox` table written in the same transaction as the change
 * (`enqueueEvents`), and a relay publishes it to JetStream with the row's `msg_id` as `Nats-Msg-Id`
 * (JetStream drops a re-publish of the same id within the stream's duplicate window), then deletes
 * it. A service calls `flush()` right after its commit, so events go out at once when NATS is up; a
 * timer publishes whatever a NATS outage or a crash left behind. After a failed publish the relay
 * pauses (1 s doubling to 10 s, reset by the next success), so while NATS is away a call's flush
 * returns at once instead of waiting out a publish timeout, and the failed row itself waits its own
 * backoff with its error kept, so one bad subject cannot hold up the rest, which still go out in the
 * order they were written.
 *
 * The timer comes every second while it finds events, and every 15 s once it finds none; an empty
 * round on the pool's only connection closes it, so an idle service holds no Postgres backend.
 *
 * Any number of replicas may relay: rows are leased with `FOR UPDATE SKIP LOCKED` (a round is two
 * statements, however many events it publishes, and its publishes go out together). The table has a
 * `tenant` column, so it is under row-level security like every tenant table (a handler's insert is
 * its tenant's; the relay reads in system scope).
 *
 * @example
 * await db.$transaction(async (tx) => {
 *   await tx.order.update(…);
 *   await enqueueEvents(tx, "shop", [{ tenant, subject: "shop.order.paid", msgId: `${id}.paid`, payload }]);
 * });
 * await ctx.outbox.flush();
 */
import pg from "pg";
import type { Logger } from "./logger.ts";
import { detachedFromCall } from "./call-signal.ts";
import { encodeJson, type Nats } from "./nats.ts";

export interface OutboxEvent {
  /** The tenant the event is about (`""` for one about no tenant, e.g. a system sweep's). */
  tenant: string;
  subject: string;
  /** JetStream's deduplication id: the same change must always give the same id. */
  msgId: string;
  payload: unknown;
}

/** The table each publishing service creates in its own schema (by a migration of its own). */
export const OUTBOX_TABLE_SQL = `CREATE TABLE "outbox" (
    "id" BIGSERIAL NOT NULL,
    "tenant" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "msg_id" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "outbox_next_attempt_at_idx" ON "outbox"("next_attempt_at", "id");
`;

/** What a transaction must offer: Prisma's interactive-transaction client, or a pg client. */
type Tx = { $executeRawUnsafe(query: string, ...values: unknown[]): Promise<unknown> } | Pick<pg.ClientBase, "query">;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

function table(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`unsafe schema name ${JSON.stringify(schema)}`);
  return `"${schema}"."outbox"`;
}

/** Writes `events` to the outbox inside the caller's transaction (one statement). */
export async function enqueueEvents(tx: Tx, schema: string, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const values: unknown[] = [];
  const rows = events.map((e) => {
    values.push(e.tenant, e.subject, e.msgId, JSON.stringify(e.payload ?? null));
    const n = values.length;
    return `($${n - 3}, $${n - 2}, $${n - 1}, $${n}::jsonb)`;
  });
  const text = `INSERT INTO ${table(schema)} (tenant, subject, msg_id, payload) VALUES ${rows.join(", ")}`;
  if ("$executeRawUnsafe" in tx) await tx.$executeRawUnsafe(text, ...values);
  else await tx.query(text, values);
}

export interface OutboxRelay {
  /** Publishes every event that is due now; resolves to how many went out (never throws). */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

export interface OutboxRelayOptions {
  /** The service's pool (tenant-scoped by the kit: the relay runs in system scope). */
  pool: pg.Pool;
  schema: string;
  nats: Nats;
  log: Logger;
  /** How often left-behind events are retried while there are any (or a publish just failed). */
  intervalMs?: number;
  /**
   * The wait between rounds once a round finds nothing due; the next round that publishes or fails
   * brings back `intervalMs`.
   */
  idleIntervalMs?: number;
  /** How long one publish may wait for JetStream's acknowledgement. */
  publishTimeoutMs?: number;
}

const BATCH = 100;
const MAX_BACKOFF_S = 10;

interface Claimed {
  id: string;
  subject: string;
  msg_id: string;
  payload: unknown;
}

/**
 * Runs `statement` (no parameters) in system scope for its own transaction only: one round trip
 * (a simple query of two statements is one transaction), and the connection keeps the scope the
 * pool gave it. Checked out in system scope, a connection the calls had left in a tenant's would
 * cost a round trip to switch, and the next call on it another to switch back, every round.
 */
async function inSystemScope<Row>(client: pg.ClientBase, statement: string): Promise<Row[]> {
  const results = (await client.query(
    `SELECT set_config('gantry.system', 'on', true); ${statement}`,
  )) as unknown as pg.QueryResult[];
  return results[1].rows as Row[];
}
/**
 * A relay polling every second kept one Postgres backend per publishing service open for good,
 * about 20 MiB of RSS each at idle (docs/benchmarks.md, *Memory*); at this interval an idle service
 * opens one for a moment every 15 s. A handler's own events never wait for the timer (it flushes
 * after its commit); only rows a crashed replica or a NATS outage left behind do, at most this long.
 */
const IDLE_INTERVAL_MS = 15_000;

export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { pool, nats, log } = opts;
  const outbox = table(opts.schema);
  const timeout = opts.publishTimeoutMs ?? 2_000;
  /** Seconds a claimed row is left to its relay: every publish has timed out well before. */
  const lease = Math.max(10, Math.ceil((5 * timeout) / 1000));
  /** The round in progress, and the one queued to start when it ends. */
  let running: Promise<number> | undefined;
  let next: Promise<number> | undefined;
  let stopped = false;
  /** Consecutive failed batches, and until when the relay waits after them. */
  let failures = 0;
  let pausedUntil = 0;
  const interval = opts.intervalMs ?? 1_000;
  const idleInterval = Math.max(interval, opts.idleIntervalMs ?? IDLE_INTERVAL_MS);
  /** Whether the last round published or failed: the timer then comes back after `interval`. */
  let busy = true;

  /**
   * One batch in two round trips, no transaction open while publishing: the due rows are leased
   * (their next attempt moved `lease` ahead: another replica skips them, and a relay that dies
   * here leaves them to be published again after it, which JetStream drops by msg id), published
   * all at once (one socket write, the acknowledgements awaited together), then the published rows
   * are deleted and each failed one given its backoff, in one statement.
   */
  const batch = async (client: pg.PoolClient): Promise<{ sent: number; more: boolean; failed: boolean }> => {
    const claimed = await inSystemScope<Claimed>(
      client,
      `UPDATE ${outbox} SET next_attempt_at = now() + make_interval(secs => ${lease})
        WHERE id IN (SELECT id FROM ${outbox} WHERE next_attempt_at <= now()
                      ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
       RETURNING id, subject, msg_id, payload`,
    );
    if (claimed.length === 0) return { sent: 0, more: false, failed: false };
    // Published in the order they were written (the claim's RETURNING has no order of its own).
    const rows = claimed.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    const acks = await Promise.allSettled(
      rows.map((r) => nats.js.publish(r.subject, encodeJson(r.payload), { msgID: r.msg_id, timeout })),
    );
    const sent: string[] = [];
    const failed: { id: string; error: string }[] = [];
    acks.forEach((ack, i) => {
      if (ack.status === "fulfilled") sent.push(rows[i].id);
      else failed.push({ id: rows[i].id, error: String(ack.reason?.message ?? ack.reason).slice(0, 500) });
    });
    const literal = pg.Client.prototype.escapeLiteral;
    await inSystemScope(
      client,
      `WITH done AS (DELETE FROM ${outbox} WHERE id = ANY('{${sent.join(",")}}'::bigint[]))
       UPDATE ${outbox} o SET attempts = o.attempts + 1, last_error = f.error,
              next_attempt_at = now() + make_interval(secs => least(${MAX_BACKOFF_S}, power(2, o.attempts)))
         FROM unnest('{${failed.map((f) => f.id).join(",")}}'::bigint[],
                     ARRAY[${failed.map((f) => literal(f.error)).join(", ")}]::text[]) AS f(id, error)
        WHERE o.id = f.id`,
    );
    if (failed.length > 0) {
      log.warn(
        { err: failed[0].error, failed: failed.length, sent: sent.length },
        "outbox publish failed; the event is retried with backoff",
      );
    }
    return { sent: sent.length, more: failed.length === 0 && rows.length === BATCH, failed: failed.length > 0 };
  };

  /** Batches until none is left or one fails; a failure pauses the relay. */
  const once = async (byTimer: boolean): Promise<{ sent: number; failed: boolean }> => {
    let total = 0;
    let failed = false;
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      for (;;) {
        const step = await batch(client);
        total += step.sent;
        failed = step.failed;
        if (!step.more) break;
      }
    } catch (err) {
      failed = true;
      log.warn({ err: String(err) }, "outbox relay failed; retrying at its next turn");
    } finally {
      // A timer's round that found nothing, on the pool's only connection: the service is idle, and
      // its Postgres backend would otherwise stay for the pool's idle timeout after every round.
      client?.release(byTimer && total === 0 && !failed && pool.totalCount === 1);
    }
    if (failed) pausedUntil = Date.now() + 1_000 * Math.min(MAX_BACKOFF_S, 2 ** failures++);
    else if (total > 0) failures = 0;
    busy = total > 0 || failed;
    if (busy) wake();
    return { sent: total, failed };
  };

  // The relay publishes every tenant's events, also when a handler's flush starts it: its
  // statements run in system scope (`inSystemScope`), on a connection in the caller's scope, and
  // are not the call's work (a round serves every caller waiting on it: one that gives up must not
  // cancel it).
  const round = (byTimer = false): Promise<number> => {
    const r: Promise<number> = detachedFromCall(() => once(byTimer))
      .then(({ sent }) => sent)
      .finally(() => {
        if (running === r) running = undefined;
      });
    running = r;
    return r;
  };

  /**
   * Resolves once a round that started after the call has ended, so the caller's committed rows
   * were seen. A call during a round joins the one queued after it (a round's SELECT may predate
   * the caller's commit); it never waits for the rounds later calls ask for, which under steady
   * load would keep every caller waiting.
   */
  const flush = (): Promise<number> => {
    if (stopped || Date.now() < pausedUntil) return Promise.resolve(0);
    if (!running) return round();
    next ??= running.then(() => {
      next = undefined;
      return stopped || Date.now() < pausedUntil ? 0 : round();
    });
    return next;
  };

  // The timer only starts a round when none is running: it must not keep a caller's flush going.
  let timer: NodeJS.Timeout | undefined;
  let dueAt = 0;
  const schedule = (ms: number) => {
    clearTimeout(timer);
    dueAt = Date.now() + ms;
    timer = setTimeout(() => {
      if (!running && !stopped && Date.now() >= pausedUntil) void round(true);
      if (!stopped) schedule(busy ? interval : idleInterval);
    }, ms);
    timer.unref();
  };
  /** Events are (or were just) pending: the timer comes back to `interval` if it was waiting longer. */
  function wake(): void {
    if (!stopped && dueAt > Date.now() + interval) schedule(interval);
  }
  schedule(interval);
  return {
    flush,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await next?.catch(() => {});
      await running?.catch(() => {});
    },
  };
}
