/**
 * @module keys/audit-consumer
 * Persists the gateway's audit records from JetStream into Postgres. Each message is a batch
 * (`audit.calls.recorded`, `{records: [...]}`); a fetch of several messages becomes one INSERT of
 * column arrays (`unnest`), whatever the row count. Messages are acknowledged only after their rows
 * are committed, so a Postgres outage delays persistence and never loses a record; the request id is
 * the primary key, so a redelivery cannot duplicate one.
 *
 * Records belong to every tenant, so the consumer loop runs in system scope (`asSystem`), wherever
 * it is started from.
 */
import { AckPolicy, type JsMsg } from "@nats-io/jetstream";
import type pg from "pg";
import {
  STREAMS,
  asSystem,
  decodeJson,
  ensureStream,
  type AuditBatch,
  type AuditRecord,
  type Logger,
  type Nats,
} from "@gantry/kit";

const DURABLE = "keys-audit-writer";

const INSERT = `
INSERT INTO "keys"."audit_records" (request_id, tenant, key_id, ability, status, error_code, duration_ms, input_hash, at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::float8[], $8::text[], $9::timestamptz[])
ON CONFLICT (request_id) DO NOTHING`;

/** Writes records in one INSERT of column arrays, whatever their count; a request id already stored is skipped. */
export async function insertAuditRecords(pool: pg.Pool, records: AuditRecord[]): Promise<void> {
  const cols: unknown[][] = [[], [], [], [], [], [], [], [], []];
  for (const a of records) {
    cols[0].push(a.requestId);
    cols[1].push(a.tenant);
    cols[2].push(a.keyId ?? null);
    cols[3].push(a.ability ?? null);
    cols[4].push(a.status);
    cols[5].push(a.errorCode ?? null);
    cols[6].push(a.durationMs);
    cols[7].push(a.inputHash ?? null);
    cols[8].push(a.at);
  }
  await pool.query(INSERT, cols);
}

/** The records of a fetch; unreadable messages are reported and terminated, not retried forever. */
function readable(messages: JsMsg[], log: Logger): { good: JsMsg[]; records: AuditRecord[] } {
  const good: JsMsg[] = [];
  const all: AuditRecord[] = [];
  for (const m of messages) {
    let records: AuditRecord[];
    try {
      records = decodeJson<AuditBatch>(m.data).records;
      if (!Array.isArray(records)) throw new Error("records is not an array");
    } catch (err) {
      log.error({ seq: m.seq, err: String(err) }, "unreadable audit message terminated");
      m.term();
      continue;
    }
    good.push(m);
    for (const a of records) all.push(a);
  }
  return { good, records: all };
}

export function startAuditConsumer(nats: Nats, pool: pg.Pool, log: Logger): { stop: () => Promise<void> } {
  let running = true;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((r) => {
      wake = r;
      setTimeout(r, ms);
    });
  const loop = asSystem(async () => {
    await ensureStream(nats.jsm, {
      ...STREAMS.AUDIT,
      subjects: [...STREAMS.AUDIT.subjects],
      max_age: 7 * 24 * 3600 * 1e9,
    });
    await nats.jsm.consumers
      .add(STREAMS.AUDIT.name, {
        durable_name: DURABLE,
        ack_policy: AckPolicy.Explicit,
        ack_wait: 30e9,
        max_ack_pending: 1_000,
      })
      .catch((err) => {
        if (!/already (exists|in use)/i.test(String(err))) throw err;
      });
    const consumer = await nats.js.consumers.get(STREAMS.AUDIT.name, DURABLE);
    let backoff = 250;
    while (running) {
      const fetched: JsMsg[] = [];
      try {
        const iter = await consumer.fetch({ max_messages: 40, expires: 1_000 });
        for await (const m of iter) fetched.push(m);
      } catch (err) {
        if (running) log.warn({ err: String(err) }, "audit fetch failed; retrying");
        await pause(500);
        continue;
      }
      if (fetched.length === 0) continue;
      const { good, records } = readable(fetched, log);
      if (good.length === 0) continue;
      try {
        await insertAuditRecords(pool, records);
        for (const m of good) m.ack();
        backoff = 250;
      } catch (err) {
        log.warn(
          { err: String(err), messages: good.length, retryInMs: backoff },
          "audit write failed; records stay in JetStream and will be retried",
        );
        for (const m of good) m.nak(backoff);
        await pause(backoff);
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  }).catch((err) => log.error({ err: String(err) }, "audit consumer stopped"));
  return {
    stop: async () => {
      running = false;
      wake?.();
      await Promise.race([loop, new Promise((r) => setTimeout(r, 2_000))]);
    },
  };
}
