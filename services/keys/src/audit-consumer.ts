/**
 * @module keys/audit-consumer
 * Persists the gateway's audit records from JetStream into Postgres. Messages are acknowledged only
 * after their rows are committed, so a Postgres outage delays persistence and never loses a record;
 * the request id is the primary key, so a redelivery cannot duplicate one.
 */
import { AckPolicy, type JsMsg } from "@nats-io/jetstream";
import { STREAMS, decodeJson, ensureStream, type AuditRecord, type Logger, type Nats } from "@gantry/kit";
import type { PrismaClient } from "./db.ts";

const DURABLE = "keys-audit-writer";

export function startAuditConsumer(nats: Nats, db: PrismaClient, log: Logger): { stop: () => Promise<void> } {
  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    await ensureStream(nats.jsm, { ...STREAMS.AUDIT, subjects: [...STREAMS.AUDIT.subjects], max_age: 7 * 24 * 3600 * 1e9 });
    await nats.jsm.consumers.add(STREAMS.AUDIT.name, { durable_name: DURABLE, ack_policy: AckPolicy.Explicit, ack_wait: 30e9, max_ack_pending: 10_000 }).catch((err) => {
      if (!/already (exists|in use)/i.test(String(err))) throw err;
    });
    const consumer = await nats.js.consumers.get(STREAMS.AUDIT.name, DURABLE);
    let backoff = 250;
    while (running) {
      const batch: JsMsg[] = [];
      try {
        const iter = await consumer.fetch({ max_messages: 500, expires: 1_000 });
        for await (const m of iter) batch.push(m);
      } catch (err) {
        if (running) log.warn({ err: String(err) }, "audit fetch failed; retrying");
        await new Promise<void>((r) => ((wake = r), setTimeout(r, 500)));
        continue;
      }
      if (batch.length === 0) continue;
      const rows = [];
      for (const m of batch) {
        try {
          const a = decodeJson<AuditRecord>(m.data);
          rows.push({ requestId: a.requestId, tenant: a.tenant, keyId: a.keyId ?? null, ability: a.ability ?? null, status: a.status, errorCode: a.errorCode ?? null, durationMs: a.durationMs, inputHash: a.inputHash ?? null, at: new Date(a.at) });
        } catch {
          log.error({ seq: m.seq }, "unreadable audit message dropped to the log");
          m.term();
        }
      }
      try {
        await db.auditRecord.createMany({ data: rows, skipDuplicates: true });
        for (const m of batch) m.ack();
        backoff = 250;
      } catch (err) {
        log.warn({ err: String(err), pending: batch.length, retryInMs: backoff }, "audit write failed; records stay in JetStream and will be retried");
        for (const m of batch) m.nak(backoff);
        await new Promise<void>((r) => ((wake = r), setTimeout(r, backoff)));
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
  })().catch((err) => log.error({ err: String(err) }, "audit consumer stopped"));
  return {
    stop: async () => {
      running = false;
      wake?.();
      await Promise.race([loop, new Promise((r) => setTimeout(r, 2_000))]);
    },
  };
}
