/**
 * gRPC message framing: a stream's chunks split into the messages they carry, however the chunks
 * fall, and a stream that breaks the limits is refused.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { frameMessage, MessageReader } from "./grpc-frame.ts";

const messages = ["", "a", "hello", "x".repeat(70_000)].map((s) => Buffer.from(s));
const wire = Buffer.concat(messages.map((m) => frameMessage(m)));

function readAll(chunks: Buffer[]): string[] {
  const got: string[] = [];
  const reader = new MessageReader((m) => got.push(m.toString()));
  for (const c of chunks) assert.equal(reader.push(c), "ok");
  return got;
}

test("messages come out whole whether the chunks hold several, or a byte each", () => {
  const want = messages.map((m) => m.toString());
  assert.deepEqual(readAll([wire]), want);
  assert.deepEqual(readAll([...wire].map((b) => Buffer.from([b]))), want);
  // Prefixes split across chunks, at every offset of the first 40 bytes.
  for (let cut = 1; cut < 40; cut++) assert.deepEqual(readAll([wire.subarray(0, cut), wire.subarray(cut)]), want);
});

test("a message over the limit, or compressed, leaves the stream unreadable", () => {
  const small = new MessageReader(() => assert.fail("nothing is delivered"), 10);
  assert.equal(small.push(frameMessage(Buffer.alloc(11))), "too-large");
  const compressed = frameMessage(Buffer.from("z"));
  compressed[0] = 1;
  assert.equal(new MessageReader(() => assert.fail("nothing is delivered")).push(compressed), "compressed");
});

test("after refusing a message the reader keeps nothing, however much more arrives (issue 27, item 5)", () => {
  const reader = new MessageReader(() => assert.fail("nothing is delivered"), 1024);
  const head = Buffer.alloc(5);
  head.writeUInt32BE(2048, 1);
  assert.equal(reader.push(head), "too-large");
  const mib = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 200; i++) assert.equal(reader.push(mib), "too-large");
  assert.equal(reader.buffered, 0, "200 MiB sent after the refusal, none held");
});
