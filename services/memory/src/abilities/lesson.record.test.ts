/**
 * lesson.record through the gateway: the spec's enums, the append-only inbox, and the
 * `memory.lesson.recorded` event on JetStream (stream LESSONS), including events the outbox relay
 * publishes after the fact.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { DeliverPolicy } from "@nats-io/jetstream";
import { SUBJECTS, connectNats, createLogger, decodeJson, type Nats } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import type { LessonRecordedEvent } from "./lesson.record.ts";

let t: TestStack;
let nats: Nats;
let acme: string;

const lesson = {
  title: "Run migrations before deploying the API",
  category: "ops",
  lesson: "The API expects the new columns at boot.",
};

async function events(): Promise<LessonRecordedEvent[]> {
  const consumer = await nats.js.consumers.get("LESSONS", { deliver_policy: DeliverPolicy.All }); // the stream holds only memory.lesson.* subjects
  const out: LessonRecordedEvent[] = [];
  const info = await nats.jsm.streams.info("LESSONS");
  if (info.state.messages === 0) return out;
  const msgs = await consumer.fetch({ max_messages: info.state.messages, expires: 2_000 });
  for await (const m of msgs) {
    out.push(decodeJson<LessonRecordedEvent>(m.data));
    if (m.info.pending === 0) break;
  }
  return out;
}

before(async () => {
  t = await startTestStack({ services: ["keys", "memory"] });
  nats = await connectNats(t.stack.env.NATS_URL, "lesson-test", createLogger("lesson-test", "silent"));
  acme = (await t.insertKey({ tenant: "acme" })).key;
});
after(async () => {
  await nats?.nc.close();
  await t?.stop();
});

describe("lesson.record", () => {
  test("appends to the inbox and publishes memory.lesson.recorded with every field", async () => {
    const input = {
      ...lesson,
      triggers: ["deploy", "migration"],
      severity: "high",
      context: "Release 1.4 deployed the API before its migration.",
      fix: "The pipeline waits for the migration job.",
      tags: ["release"],
      reusable: true,
    };
    const res = await t.call("lesson.record", { input }, acme).expect(200);
    const r = res.body.result;
    assert.match(r.id, /^les_[0-9A-Za-z]{22}$/);
    assert.equal(r.status, "inbox");
    assert.equal(r.event, "memory.lesson.recorded");
    const { rows } = await t.db.query(
      `SELECT tenant, title, category, triggers, severity, context, lesson, fix, tags, reusable, request_id FROM memory.lessons WHERE id = $1`,
      [r.id],
    );
    assert.deepEqual(rows[0], {
      tenant: "acme",
      title: input.title,
      category: "ops",
      triggers: input.triggers,
      severity: "high",
      context: input.context,
      lesson: input.lesson,
      fix: input.fix,
      tags: ["release"],
      reusable: true,
      request_id: res.headers["x-request-id"],
    });
    const ev = await eventually(async () => (await events()).find((e) => e.id === r.id));
    assert.equal(ev.tenant, "acme");
    assert.equal(ev.category, "ops");
    assert.deepEqual(ev.triggers, ["deploy", "migration"]);
    assert.equal(ev.reusable, true);
    assert.equal(ev.recorded, r.recorded);
    assert.equal(ev.requestId, res.headers["x-request-id"]);
    const { rows: pending } = await t.db.query(`SELECT count(*)::int AS n FROM memory.outbox`);
    assert.equal(pending[0].n, 0, "the outbox is drained");
  });

  test("the spec's enums and required fields are enforced (400 with paths)", async () => {
    for (const category of ["engineering", "ops", "business", "architecture", "security"]) {
      await t.call("lesson.record", { input: { ...lesson, category } }, acme).expect(200);
    }
    for (const severity of ["critical", "high", "medium", "low"]) {
      await t.call("lesson.record", { input: { ...lesson, severity } }, acme).expect(200);
    }
    const bad = await t
      .call("lesson.record", { input: { ...lesson, category: "misc", severity: "blocker" } }, acme)
      .expect(400);
    const paths = bad.body.details.map((d: { path: string }) => d.path);
    assert.ok(paths.includes("/input/category") && paths.includes("/input/severity"), JSON.stringify(paths));
    const missing = await t.call("lesson.record", { input: { title: "t", category: "ops" } }, acme).expect(400);
    assert.ok(missing.body.details.some((d: { path: string }) => d.path === "/input/lesson"));
    await t.call("lesson.record", { input: { ...lesson, id: "les_x" } }, acme).expect(400);
  });

  test("the inbox is append-only: the database refuses updates and deletes", async () => {
    const r = (await t.call("lesson.record", { input: lesson }, acme).expect(200)).body.result;
    await assert.rejects(
      t.db.query(`UPDATE memory.lessons SET title = 'edited' WHERE id = $1`, [r.id]),
      /append-only \(UPDATE refused\)/,
    );
    await assert.rejects(
      t.db.query(`DELETE FROM memory.lessons WHERE id = $1`, [r.id]),
      /append-only \(DELETE refused\)/,
    );
    const { rows } = await t.db.query(`SELECT title FROM memory.lessons WHERE id = $1`, [r.id]);
    assert.equal(rows[0].title, lesson.title);
  });

  test("the outbox relay publishes events left behind (e.g. by a NATS outage)", async () => {
    const payload = { id: "les_leftover_0000000000001", tenant: "acme", title: "left behind" };
    await t.db.query(`INSERT INTO memory.outbox (tenant, subject, msg_id, payload) VALUES ('acme', $1, $2, $3)`, [
      SUBJECTS.lessonRecorded,
      payload.id,
      JSON.stringify(payload),
    ]);
    await eventually(async () => (await events()).some((e) => e.id === payload.id), 10_000, 200);
    await eventually(
      async () => (await t.db.query(`SELECT count(*)::int AS n FROM memory.outbox`)).rows[0].n === 0,
      5_000,
      100,
    );
  });
});
