/**
 * The outbox relay's JetStream publisher against a real NATS server:
 * - a batch is stored in the order given, each message under its `Nats-Msg-Id`, and a message whose
 *   id the stream already holds is taken as sent and stored once (what consumers dedupe by);
 * - a message no stream takes, one nobody answers and one that cannot be sent each fail alone, with
 *   what failed, and the rest are stored;
 * - rounds in flight together each time out at their own deadline, not at another round's;
 * - a closed connection fails every message without throwing;
 * - under a service's login, which may subscribe only under its own inbox, the answers still arrive.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { createLogger } from "./logger.ts";
import { connectNats, decodeJson, encodeJson, ensureStream, type Nats } from "./nats.ts";
import { jetStreamBatchPublisher } from "./outbox-publish.ts";

const STREAM = { name: "OUTBOX_PUBLISH", subjects: ["outboxpub.>"] };
const log = createLogger("outbox-publish-test", "silent");
let t: TestStack;
let nats: Nats;

before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  nats = await connectNats(t.stack.env.NATS_URL, "outbox-publish-test", log);
  await ensureStream(nats.jsm, STREAM);
});

after(async () => {
  await nats?.nc.close().catch(() => {});
  await t?.stop();
});

/** The stream's messages from `seq` on, in its order: subject, msg id and body. */
async function stored(seq: number): Promise<{ subject: string; id: string; n: number }[]> {
  const info = await nats.jsm.streams.info(STREAM.name);
  const out: { subject: string; id: string; n: number }[] = [];
  for (let s = seq; s <= info.state.last_seq; s++) {
    const m = await nats.jsm.streams.getMessage(STREAM.name, { seq: s });
    if (m)
      out.push({ subject: m.subject, id: m.header?.get("Nats-Msg-Id") ?? "", n: decodeJson<{ n: number }>(m.data).n });
  }
  return out;
}

async function lastSeq(): Promise<number> {
  return (await nats.jsm.streams.info(STREAM.name)).state.last_seq;
}

const message = (n: number, subject = "outboxpub.thing", msgId = `pub-${n}`) => ({
  subject,
  data: encodeJson({ n }),
  msgId,
});

test("a batch is stored in its order under its msg ids; a known id is taken as sent and stored once", async () => {
  const publisher = jetStreamBatchPublisher(nats);
  try {
    const from = (await lastSeq()) + 1;
    const batch = Array.from({ length: 50 }, (_, i) => message(i, i % 2 ? "outboxpub.odd" : "outboxpub.even"));
    assert.deepEqual(await publisher.publishAll(batch, 5_000), new Array(50).fill(undefined));
    // A relay that published and lost its commit sends the same rows again.
    assert.deepEqual(await publisher.publishAll(batch.slice(0, 3), 5_000), [undefined, undefined, undefined]);
    assert.deepEqual(
      await stored(from),
      batch.map((m, i) => ({ subject: m.subject, id: m.msgId, n: i })),
    );
  } finally {
    publisher.close();
  }
});

test("a message no stream takes, one nobody answers and one that cannot be sent fail alone", async () => {
  const publisher = jetStreamBatchPublisher(nats);
  // A plain subscriber: the message has a responder (no 503), which never answers.
  const silent = nats.nc.subscribe("outboxsilent.>", { callback: () => {} });
  try {
    await nats.nc.flush();
    const from = (await lastSeq()) + 1;
    const outcomes = await publisher.publishAll(
      [
        message(101),
        message(102, "outboxnowhere.thing"),
        message(103),
        message(104, "outboxsilent.thing"),
        message(105, "outboxpub.bad subject"),
        message(106, "outboxpub.thing", "pub-106\r\nInjected: yes"),
        message(107),
      ],
      300,
    );
    assert.deepEqual(
      outcomes.map((err) => err?.message.match(/no responders|no JetStream answer|illegal subject|line break/)?.[0]),
      [undefined, "no responders", undefined, "no JetStream answer", "illegal subject", "line break", undefined],
      outcomes.map(String).join("; "),
    );
    assert.deepEqual(
      (await stored(from)).map((m) => m.n),
      [101, 103, 107],
    );
  } finally {
    silent.unsubscribe();
    publisher.close();
  }
});

test("rounds in flight together each time out at their own deadline, and one answered is not held by them", async () => {
  const publisher = jetStreamBatchPublisher(nats);
  const silent = nats.nc.subscribe("outboxsilent.>", { callback: () => {} });
  try {
    await nats.nc.flush();
    const settled: string[] = [];
    const round = (name: string, messages: ReturnType<typeof message>[], timeoutMs: number) =>
      publisher.publishAll(messages, timeoutMs).then((outcomes) => {
        settled.push(name);
        return outcomes.map((err) => err?.message.match(/no JetStream answer within \d+ ms/)?.[0]);
      });
    // Set first but due last: a publisher that timed rounds out together would fail this.
    const long = round("long", [message(301, "outboxsilent.thing")], 3_000);
    const short = round("short", [message(302, "outboxsilent.thing")], 300);
    const stored = round("stored", [message(303)], 3_000);
    assert.deepEqual(await stored, [undefined]);
    assert.deepEqual(await short, ["no JetStream answer within 300 ms"]);
    assert.ok(!settled.includes("long"), "the long round still waits for its answer");
    assert.deepEqual(await long, ["no JetStream answer within 3000 ms"]);
  } finally {
    silent.unsubscribe();
    publisher.close();
  }
});

test("on a closed connection every message fails, and nothing throws", async () => {
  const closing = await connectNats(t.stack.env.NATS_URL, "outbox-publish-closed", log);
  const nc = closing.nc;
  const publisher = jetStreamBatchPublisher(closing);
  assert.deepEqual(await publisher.publishAll([message(1)], 5_000), [undefined]);
  await nc.close();
  const outcomes = await publisher.publishAll([message(2), message(3)], 5_000);
  assert.equal(outcomes.length, 2);
  for (const err of outcomes) assert.match(String(err), /closed/i);
  publisher.close();
});

test("under a service's login the answers come to its own inbox, the only one it may subscribe under", async () => {
  // The stack's logins (infra/runner/stack.ts natsConfig): payments may subscribe only to _INBOX.payments.>.
  const passwords = JSON.parse(fs.readFileSync(path.join(t.stack.dataDir, "nats-users"), "utf8")) as Record<
    string,
    string
  >;
  const url = t.stack.env.NATS_URL.replace(/\/\/[^@]*@/, `//payments:${encodeURIComponent(passwords.payments)}@`);
  const payments = await connectNats(url, "outbox-publish-login", log);
  const publisher = jetStreamBatchPublisher(payments);
  try {
    const from = (await lastSeq()) + 1;
    assert.deepEqual(await publisher.publishAll([message(201), message(202)], 5_000), [undefined, undefined]);
    assert.deepEqual(
      (await stored(from)).map((m) => m.n),
      [201, 202],
    );
  } finally {
    publisher.close();
    await payments.nc.close();
  }
});
