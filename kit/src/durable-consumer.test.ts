/**
 * The kit's durable-consumer loop against a real NATS server: every message is handled, never more
 * than `concurrency` at once; a handler that throws has its message handed to `failed`, whose nak
 * brings it back; a consumer left by an earlier start is brought in line with `update`; stop()
 * returns with nothing in flight.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { AckPolicy, type JsMsg } from "@nats-io/jetstream";
import { startDurableConsumer } from "./durable-consumer.ts";
import { createLogger } from "./logger.ts";
import { connectNats, ensureStream, type Nats } from "./nats.ts";

const STREAM = { name: "CONSUMER_DEMO", subjects: ["consumerdemo.>"] };
const log = createLogger("durable-consumer-test", "silent");
let t: TestStack;
let nats: Nats;

before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  nats = await connectNats(t.stack.env.NATS_URL, "durable-consumer-test", log);
  await ensureStream(nats.jsm, STREAM);
});
after(async () => {
  await nats?.nc.close().catch(() => {});
  await t?.stop();
});

test("every message is handled, at most `concurrency` at once, and a failed one comes back", async () => {
  const subject = "consumerdemo.a";
  for (let n = 0; n < 12; n++) await nats.js.publish(subject, JSON.stringify({ n }));
  const handled = new Set<number>();
  let inFlight = 0;
  let most = 0;
  let failedOnce = false;
  const failures: number[] = [];
  const c = startDurableConsumer({
    nats,
    stream: STREAM.name,
    consumer: { durable_name: "demo-a", filter_subject: subject, ack_wait: 10e9 },
    concurrency: 3,
    handle: async (m: JsMsg) => {
      const { n } = m.json<{ n: number }>();
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      if (n === 5 && !failedOnce) {
        failedOnce = true;
        throw new Error("first try of 5 fails");
      }
      handled.add(n);
      m.ack();
    },
    failed: (_err, m) => {
      failures.push(m.json<{ n: number }>().n);
      m.nak(50);
    },
    log,
    what: "demo consumer",
  });
  try {
    await eventually(async () => handled.size === 12);
    assert.deepEqual(failures, [5]);
    assert.equal(most, 3, "three at once, never more");
  } finally {
    await c.stop();
  }
  const info = await nats.jsm.consumers.info(STREAM.name, "demo-a");
  assert.equal(info.num_ack_pending, 0);
  assert.equal(info.config.ack_policy, AckPolicy.Explicit);
});

test("a consumer made by an earlier start takes the new settings named in `update`", async () => {
  await nats.jsm.consumers.add(STREAM.name, {
    durable_name: "demo-b",
    ack_policy: AckPolicy.Explicit,
    ack_wait: 5e9,
    filter_subject: "consumerdemo.b",
  });
  const c = startDurableConsumer({
    nats,
    stream: STREAM.name,
    consumer: { durable_name: "demo-b", filter_subject: "consumerdemo.b", ack_wait: 20e9 },
    update: { ack_wait: 20e9 },
    handle: async (m) => m.ack(),
    failed: (_err, m) => m.nak(),
    log,
    what: "demo consumer",
  });
  try {
    await eventually(async () => (await nats.jsm.consumers.info(STREAM.name, "demo-b")).config.ack_wait === 20e9);
  } finally {
    await c.stop();
  }
});
