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
 * Any number of replicas may relay: a round claims the due rows by deleting them (`FOR UPDATE SKIP
 * LOCKED`, so another replica skips them) in a transaction it holds while it publishes them together,
 * and commits once JetStream has answered each; a failed row is written back in that commit, as it
 * was but with its error and backoff. A round is two round trips, the claim and the commit, however
 * many events it publishes. The open transaction is bounded: each publish by its timeout, and the
 * transaction by Postgres's `idle_in_transaction_session_timeout`, set for it to a lease (10 s, or 5
 * publish timeouts if longer), so a relay that crashes or stalls before its commit gives its rows
 * back, to be published again after it. While NATS is away a round holds its transaction for one
 * publish timeout, then the relay pauses. The table has a `tenant` column, so it is under row-level
 * security like every tenant table (a handler's insert is its tenant's; the relay claims in system
 * scope).
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
import { type JetStreamBatchPublisher, jetStreamBatchPublisher } from "./outbox-publish.ts";

export interface OutboxEvent {
  /** The tenant the event is about (`""` for one about no tenant, e.g. a system sweep's). */
  tenant: string;
  subject: string;
  /** JetStream's deduplication id: the same change must always give the same id. */
  msgId: string;
  payload: unknown;
}

/**
 * The table each publishing service creates in its own schema (by a migration of its own). The relay
 * reads it in `id` order, on the primary key, and filters `next_attempt_at`: only rows written back
 * after a failed publish wait, so few are passed over, and an index on it would be one more entry for
 * every event.
 */
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
  /** What publishes a round's events: by default one on `nats.nc` (a test stands in its own for JetStream). */
  publisher?: JetStreamBatchPublisher;
}

const BATCH = 100;
const MAX_BACKOFF_S = 10;

interface Claimed {
  id: string;
  tenant: string;
  subject: string;
  msg_id: string;
  payload: unknown;
  attempts: number;
  /** As text: only a failed row needs it back, and parsing a `Date` for every row would be waste. */
  created_at: string;
}

/**
 * A relay polling every second kept one Postgres backend per publishing service open for good,
 * about 20 MiB of RSS each at idle (docs/benchmarks.md, *Memory*); at this interval an idle service
 * opens one for a moment every 15 s. A handler's own events never wait for the timer (it flushes
 * after its commit); only rows a crashed replica or a NATS outage left behind do, at most this long.
 */
const IDLE_INTERVAL_MS = 15_000;

export function startOutboxRelay(opts: OutboxRelayOptions): OutboxRelay {
  const { pool, log } = opts;
  const publisher = opts.publisher ?? jetStreamBatchPublisher(opts.nats);
  const outbox = table(opts.schema);
  const timeout = opts.publishTimeoutMs ?? 2_000;
  /**
   * Seconds a claim may sit idle before Postgres ends it (and its session): every publish has timed
   * out well before, so only a relay that froze or lost its connection reaches it.
   */
  const lease = Math.max(10, Math.ceil((5 * timeout) / 1000));
  /**
   * The claim opens the round's transaction and holds its rows by deleting them (one simple query,
   * so one round trip): the relay runs in system scope for this transaction only, and the connection
   * keeps the scope the pool gave it (checked out in system scope, a connection the calls had left
   * in a tenant's would cost a round trip to switch, and the next call on it another to switch back).
   * A lease that updated the rows instead wrote each row again with its index entries, and a second
   * transaction (kit README, *Messaging*). The rows are deleted where the locking read found them
   * (`ctid`), not looked up again by id in the primary key: a row is never updated, and one this
   * transaction has locked cannot move.
   */
  const claim = `BEGIN;
    SELECT set_config('gantry.system', 'on', true), set_config('idle_in_transaction_session_timeout', '${lease}s', true);
    DELETE FROM ${outbox} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${outbox} WHERE next_attempt_at <= now()
                                                 ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED))
    RETURNING id, tenant, subject, msg_id, payload, attempts, created_at::text AS created_at`;
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
   * One batch in two round trips: the due rows are claimed (deleted in a transaction left open:
   * another replica skips them, and a relay that dies or stalls before its commit gives them back,
   * to be published again after it, which JetStream drops by msg id), published all at once (one
   * socket write, the acknowledgements awaited together under one `timeout`: outbox-publish.ts), then the
   * transaction commits. Failed rows are written back in that commit, with their id, their error and
   * their backoff.
   */
  const batch = async (client: pg.PoolClient): Promise<{ sent: number; more: boolean; failed: boolean }> => {
    const results = (await client.query(claim)) as unknown as pg.QueryResult[];
    const claimed = results[2].rows as Claimed[];
    if (claimed.length === 0) {
      await client.query("COMMIT");
      return { sent: 0, more: false, failed: false };
    }
    // Published in the order they were written (the claim's RETURNING has no order of its own). Ids
    // are bigint's decimal text without leading zeros: the shorter is the smaller.
    const rows = claimed.sort((a, b) => a.id.length - b.id.length || (a.id < b.id ? -1 : 1));
    const outcomes = await publisher.publishAll(
      rows.map((r) => ({ subject: r.subject, data: encodeJson(r.payload), msgId: r.msg_id })),
      timeout,
    );
    const failed: { row: Claimed; error: string }[] = [];
    outcomes.forEach((err, i) => {
      if (err) failed.push({ row: rows[i], error: err.message.slice(0, 500) });
    });
    if (failed.length === 0) {
      await client.query("COMMIT");
      return { sent: rows.length, more: rows.length === BATCH, failed: false };
    }
    // A failed row goes back as it was, under its own id (so in its place in the order), one attempt
    // more and its backoff ahead; the sent ones stay deleted. Values as literals: one simple query.
    const literal = pg.Client.prototype.escapeLiteral;
    const values = failed.map(
      ({ row: r, error }) =>
        `(${BigInt(r.id)}, ${literal(r.tenant)}, ${literal(r.subject)}, ${literal(r.msg_id)}, ${literal(JSON.stringify(r.payload ?? null))}::jsonb, ` +
        `${r.attempts + 1}, now() + make_interval(secs => ${Math.min(MAX_BACKOFF_S, 2 ** r.attempts)}), ${literal(error)}, ` +
        `${literal(r.created_at)}::timestamptz)`,
    );
    await client.query(
      `INSERT INTO ${outbox} (id, tenant, subject, msg_id, payload, attempts, next_attempt_at, last_error, created_at)
       VALUES ${values.join(", ")}; COMMIT`,
    );
    log.warn(
      { err: failed[0].error, failed: failed.length, sent: rows.length - failed.length },
      "outbox publish failed; the event is retried with backoff",
    );
    return { sent: rows.length - failed.length, more: false, failed: true };
  };

  /** Batches until none is left or one fails; a failure pauses the relay. */
  const once = async (byTimer: boolean): Promise<{ sent: number; failed: boolean }> => {
    let total = 0;
    let failed = false;
    let client: pg.PoolClient | undefined;
    /** An error that ended the connection, or broke off a batch whose transaction may be open. */
    let broken: Error | undefined;
    // Postgres may end the session while the claim waits on its publishes (its idle timeout); a
    // checked-out client has no pool listener, and an unheard 'error' would end the process.
    const onError = (err: Error) => {
      broken = err;
    };
    try {
      client = await pool.connect();
      client.on("error", onError);
      for (;;) {
        const step = await batch(client);
        total += step.sent;
        failed = step.failed;
        if (!step.more) break;
      }
    } catch (err) {
      failed = true;
      broken ??= err as Error;
      log.warn({ err: String(err) }, "outbox relay failed; retrying at its next turn");
    } finally {
      client?.removeListener("error", onError);
      // A broken batch's connection is closed, not reused: closing ends its transaction, which gives
      // the claimed rows back. A timer's round that found nothing, on the pool's only connection:
      // the service is idle, and its Postgres backend would otherwise stay for the pool's idle
      // timeout after every round.
      client?.release(broken ?? (byTimer && total === 0 && !failed && pool.totalCount === 1));
    }
    if (failed) pausedUntil = Date.now() + 1_000 * Math.min(MAX_BACKOFF_S, 2 ** failures++);
    else if (total > 0) failures = 0;
    busy = total > 0 || failed;
    if (busy) wake();
    return { sent: total, failed };
  };

  // The relay publishes every tenant's events, also when a handler's flush starts it: its
  // statements run in system scope (set by the claim for its transaction), on a connection in the caller's scope, and
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
      publisher.close();
    },
  };
}
