/**
 * @module memory/outbox
 * Events committed in the same transaction as the record they describe (table `outbox`), then
 * published to JetStream with the row's `msg_id` (JetStream deduplicates a re-publish within the
 * stream's 2-minute window) and deleted. `flush()` runs right after a commit; a relay loop every
 * 2 s publishes whatever a NATS outage or a crash left behind. Rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, so replicas never publish the same row at the same time. The relay
 * runs in system scope (it serves every tenant), whether the timer or a handler's flush starts it.
 */
import type pg from "pg";
import { asSystem, encodeJson, type Logger, type Nats } from "@gantry/kit";

export interface Outbox {
  /** Publishes pending events now; resolves to how many went out (never throws). */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

export function startOutbox(pool: pg.Pool, nats: Nats, log: Logger, intervalMs = 2_000): Outbox {
  let running: Promise<number> | undefined;
  let again = false;

  const once = async (): Promise<number> => {
    const client = await pool.connect();
    let sent = 0;
    try {
      for (;;) {
        await client.query("BEGIN");
        const { rows } = await client.query<{ id: string; subject: string; msg_id: string; payload: unknown }>(
          `SELECT id, subject, msg_id, payload FROM memory.outbox ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED`,
        );
        if (rows.length === 0) {
          await client.query("COMMIT");
          return sent;
        }
        try {
          for (const r of rows)
            await nats.js.publish(r.subject, encodeJson(r.payload), { msgID: r.msg_id, timeout: 2_000 });
        } catch (err) {
          await client.query("ROLLBACK");
          log.warn(
            { err: String(err), pending: rows.length },
            "outbox publish failed; events stay in the outbox and are retried",
          );
          return sent;
        }
        await client.query(`DELETE FROM memory.outbox WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
        await client.query("COMMIT");
        sent += rows.length;
      }
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      log.warn({ err: String(err) }, "outbox relay failed; retrying");
      return sent;
    } finally {
      client.release();
    }
  };

  const flush = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    // The relay publishes every tenant's events, also when a handler's flush starts it: system scope.
    running = asSystem(async () => {
      let total = 0;
      do {
        again = false;
        total += await once();
      } while (again);
      return total;
    }).finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();
  return {
    flush,
    stop: async () => {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
