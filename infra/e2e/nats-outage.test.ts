/**
 * Events across a NATS outage, end to end (issue 28, item 3): with NATS stopped, calls that change
 * records still answer 200 (their events wait in each service's outbox, written in the same
 * transaction), and once NATS is back every event of every 200 call arrives, exactly once by id.
 * Through the real gateway and services: lesson.record (memory, stream LESSONS) and key.issue
 * (keys, stream KEYS).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { connectNats, createLogger, decodeJson, type Nats } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "../testing/stack.ts";

let t: TestStack;

before(async () => {
  t = await startTestStack({ services: ["keys", "memory"] });
});
after(() => t?.stop());

/** Every message of a stream on one subject, as [msg id, body]. */
async function messages(nats: Nats, stream: string, subject: string): Promise<[string, Record<string, unknown>][]> {
  const name = `e2e_${Math.random().toString(36).slice(2)}`;
  await nats.jsm.consumers.add(stream, {
    name,
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subject,
    inactive_threshold: 10_000_000_000,
  });
  const consumer = await nats.js.consumers.get(stream, name);
  const { num_pending: count } = await consumer.info();
  const out: [string, Record<string, unknown>][] = [];
  if (count === 0) return out;
  for await (const m of await consumer.fetch({ max_messages: count, expires: 5_000 })) {
    out.push([m.headers?.get("Nats-Msg-Id") ?? "", decodeJson(m.data)]);
    if (out.length === count) break;
  }
  return out;
}

test("every event of a 200 call made while NATS was down arrives once NATS is back, exactly once by id", async () => {
  await t.stack.stopService("nats");
  const lessons: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await t
      .call("lesson.record", {
        input: { title: `Outage lesson ${i}`, category: "ops", lesson: "Events wait in the outbox." },
      })
      .expect(200);
    lessons.push(res.body.result.id);
  }
  const keys: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await t
      .call("key.issue", { input: { tenant: "outage-co", name: `outage ${i}`, scopes: ["contact.get"] } })
      .expect(200);
    keys.push(res.body.result.id);
  }
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM memory.outbox`);
  assert.equal(rows[0].n, 4, "the lessons' events wait in memory's outbox");

  await t.stack.startService("nats");
  await t.stack.waitHealthy("nats", 60_000);
  const nats = await connectNats(t.stack.env.NATS_URL, "e2e-outage", createLogger("e2e", "silent"));
  try {
    const arrived = await eventually(async () => {
      const got = await messages(nats, "LESSONS", "memory.lesson.recorded");
      const ids = got.map(([, body]) => body.id as string).filter((id) => lessons.includes(id));
      return ids.length >= lessons.length ? got : undefined;
    }, 60_000);
    const lessonIds = arrived.map(([, body]) => body.id as string).filter((id) => lessons.includes(id));
    assert.deepEqual(lessonIds.sort(), [...lessons].sort(), "each lesson's event once");
    const issued = await eventually(async () => {
      const got = await messages(nats, "KEYS", "keys.key.issued");
      const ids = got.map(([, body]) => body.keyId as string).filter((id) => keys.includes(id));
      return ids.length >= keys.length ? ids : undefined;
    }, 60_000);
    assert.deepEqual(issued.sort(), [...keys].sort(), "each key's notice once");
    const left = await t.db.query(
      `SELECT (SELECT count(*) FROM memory.outbox) + (SELECT count(*) FROM keys.outbox) AS n`,
    );
    assert.equal(Number(left.rows[0].n), 0, "both outboxes drained");
  } finally {
    await nats.nc.close();
  }
});
