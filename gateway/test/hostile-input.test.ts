/**
 * Hostile bodies through the real gateway (issue 27, items 1 and 8), at the default 1 MiB body
 * limit: each is a prompt 400 naming the field, never a gateway held for seconds or a 500.
 * - the sender pattern's backtracking attack (recheck's), padded to the body limit;
 * - a body of `[[[[…` as deep as the limit allows;
 * - a field name of a mebibyte of slashes.
 * A call that needed its full content validated would take seconds to hours; the bound is loose.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

const MIB = 1024 * 1024;
const PROMPT_MS = 2_000;
let t: TestStack;

before(async () => {
  t = await startTestStack({ services: ["keys"] });
});
after(() => t?.stop());

/** POSTs a raw JSON text and says how long the answer took. */
async function post(ability: string, body: string) {
  const started = performance.now();
  const res = await request(t.url)
    .post(`/v1/abilities/${ability}`)
    .set("Authorization", `Bearer ${t.adminKey}`)
    .set("Content-Type", "application/json")
    .send(body);
  return { res, ms: performance.now() - started };
}

test("a backtracking attack on a patterned field is refused by its length, promptly", async () => {
  const from = `\t <.@\u0000${"..".repeat((MIB - 200) / 2)}\n`.replace("\u0000", "x");
  const body = JSON.stringify({ input: { to: "ada@example.com", subject: "Hi", markdown: "Hello", from } });
  assert.ok(body.length < MIB, "the body fits the default limit");
  const { res, ms } = await post("message.send_markdown", body);
  assert.equal(res.status, 400);
  assert.equal(res.body.code, "validation_failed");
  assert.deepEqual(
    res.body.details.map((d: { path: string; code: string }) => [d.path, d.code]),
    [["/input/from", "maxLength"]],
  );
  assert.ok(ms < PROMPT_MS, `answered in ${ms.toFixed(0)} ms`);
});

test("the sender pattern still takes a name and an address, and refuses a malformed one in words", async () => {
  const call = (from: string) =>
    t.call("message.send_markdown", { input: { to: "ada@example.com", subject: "Hi", markdown: "Hello", from } });
  const bad = await call("Ada Obi <ada@example..com>").expect(400);
  assert.match(bad.body.details[0].message, /a name and an email address in angle brackets/);
  const good = await call("Ada Obi <ada@mail.example.com>");
  // Valid: it passes the gateway and reaches the content service, which this stack does not run.
  assert.equal(good.status, 503, JSON.stringify(good.body));
});

test("a body nested as deep as the body limit allows is 400 nested_too_deep, not a 500", async () => {
  const depth = (MIB - 100) / 2;
  const body = `{"input":{"to":"ada@example.com","subject":"Hi","markdown":"x","metadata":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
  const { res, ms } = await post("message.send_markdown", body);
  assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
  assert.equal(res.body.details[0].code, "nested_too_deep");
  assert.ok(ms < PROMPT_MS, `answered in ${ms.toFixed(0)} ms`);
});

test("nesting within the limit but deeper than any input needs is named by its path", async () => {
  let nested: unknown = "deep";
  for (let i = 0; i < 40; i++) nested = { a: nested };
  const res = await t.call("contact.create", { input: { name: "Ada", metadata: nested } }).expect(400);
  const detail = res.body.details[0];
  assert.equal(detail.code, "nested_too_deep");
  assert.equal(detail.path, `/input/metadata${"/a".repeat(31)}`);
});

test("a mebibyte field name is refused by its length, promptly, without echoing it", async () => {
  const name = "/".repeat(MIB - 200);
  const body = JSON.stringify({ input: { name: "Ada", metadata: { [name]: "x" } } });
  const { res, ms } = await post("contact.create", body);
  assert.equal(res.status, 400);
  assert.deepEqual(
    res.body.details.map((d: { path: string; code: string }) => [d.path, d.code]),
    [["/input/metadata", "field_name_too_long"]],
  );
  assert.ok(JSON.stringify(res.body).length < 2_000, "the answer does not carry the name back");
  assert.ok(ms < PROMPT_MS, `answered in ${ms.toFixed(0)} ms`);
});
