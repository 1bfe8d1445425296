/**
 * audit.ts in one process: auditTime, the `at` of every audit record, reads as
 * `Date.prototype.toISOString` however the calls fall around second, minute, day and year
 * boundaries; the publisher sends records as batches and keeps a refused batch until it is stored
 * (test/audit.test.ts has the records through NATS and the keys service into Postgres).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type AuditBatch, type AuditRecord, createLogger, SUBJECTS } from "@gantry/kit";
import type { JetStreamBatchPublisher } from "@gantry/kit/outbox-publish.ts";
import { AuditPublisher, auditTime } from "./audit.ts";

test("auditTime reads as toISOString, across second boundaries and out of order", () => {
  const edges = [
    0,
    1,
    999,
    1_000,
    1_001,
    Date.UTC(2026, 10, 26, 23, 59, 59, 999),
    Date.UTC(2026, 10, 27),
    Date.UTC(2027, 0, 1, 0, 0, 0, 7),
  ];
  const times = [...edges, ...edges.slice().reverse()];
  for (let i = 0; i < 5_000; i++) times.push(Date.UTC(2026, 10, 26) + i * 337);
  for (const ms of times) assert.equal(auditTime(ms), new Date(ms).toISOString(), `at ${ms}`);
  assert.match(auditTime(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

/** A publisher that refuses its first `refusals` batches and keeps the rest, as JetStream would answer. */
function standInPublisher(refusals: number) {
  const stored: { msgId: string; records: AuditRecord[] }[] = [];
  let asked = 0;
  const publisher: JetStreamBatchPublisher = {
    publishAll: async (messages) =>
      messages.map((m) => {
        assert.equal(m.subject, SUBJECTS.auditCallsRecorded);
        if (asked++ < refusals) return new Error("no JetStream answer within 5000 ms");
        stored.push({ msgId: m.msgId, records: (JSON.parse(Buffer.from(m.data).toString()) as AuditBatch).records });
        return undefined;
      }),
    close: () => {},
  };
  return { publisher, stored, asked: () => asked };
}

const log = createLogger("audit-test", "silent");
const rec = (i: number): AuditRecord => ({
  requestId: `req_${i}`,
  tenant: "acme",
  status: 200,
  durationMs: 1,
  at: auditTime(),
});

test("records go out as one batch message, its id named by its first record and its size", async () => {
  const { publisher, stored } = standInPublisher(0);
  const audit = new AuditPublisher({ nc: undefined as never }, log, publisher);
  for (let i = 0; i < 3; i++) audit.record(rec(i));
  await audit.flush();
  assert.deepEqual(stored, [
    { msgId: "req_0+3", records: [rec(0), rec(1), rec(2)].map((r, i) => ({ ...r, at: stored[0].records[i].at })) },
  ]);
  assert.equal(audit.published, 3);
  assert.equal(audit.pending, 0);
});

test("a refused batch is kept and sent again: no record is lost, none is stored twice", async () => {
  const { publisher, stored, asked } = standInPublisher(1);
  const audit = new AuditPublisher({ nc: undefined as never }, log, publisher);
  for (let i = 0; i < 5; i++) audit.record(rec(i));
  await audit.flush();
  assert.equal(asked(), 2);
  assert.deepEqual(
    stored.flatMap((b) => b.records.map((r) => r.requestId)),
    ["req_0", "req_1", "req_2", "req_3", "req_4"],
  );
  assert.equal(audit.published, 5);
  assert.equal(audit.pending, 0);
});
