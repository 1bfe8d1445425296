/**
 * context.verticalId on messages and guides (issue 32 item 7): a message sent and a guide published
 * under a vertical show it and keep it in their rows; without one they show null; a later publish of
 * the same guide keeps its vertical unless it names another.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { type ContentTest, startContent } from "./helpers.ts";

let connections: ServiceHarness<unknown>;
let t: ContentTest;
before(async () => {
  connections = await startService("connections", { CONNECTIONS_PLATFORM_ACCOUNTS: "{}" });
  t = await startContent({ CONNECTIONS_ADDR: `127.0.0.1:${connections.port}` });
});
after(async () => {
  await t?.stop();
  await connections?.stop();
});

test("message.send and message.send_markdown keep context.verticalId", async () => {
  const tenant = "vertical-msg";
  const md = await t.s.call(
    "message.send_markdown",
    { to: "ada@contoso.example", subject: "Hello", markdown: "# Hi" },
    { tenant, verticalId: "clinic" },
  );
  assert.equal(md.vertical, "clinic");
  const plain = await t.s.call(
    "message.send",
    { channel: "email", to: "ada@contoso.example", subject: "Hello", text: "Hi" },
    { tenant },
  );
  assert.equal(plain.vertical, null);
  const sent = await t.s.call(
    "message.send",
    { channel: "email", to: "ada@contoso.example", subject: "Hello", text: "Hi", idempotencyKey: "v-1" },
    { tenant, verticalId: "salon" },
  );
  assert.equal(sent.vertical, "salon");
  const replay = await t.s.call(
    "message.send",
    { channel: "email", to: "ada@contoso.example", subject: "Hello", text: "Hi", idempotencyKey: "v-1" },
    { tenant, verticalId: "salon" },
  );
  assert.equal(replay.id, sent.id);
  assert.equal(replay.vertical, "salon");
  const { rows } = await t.s.db.query(
    "SELECT id, vertical FROM content.deliveries WHERE id = ANY($1) ORDER BY vertical NULLS LAST",
    [[md.id, plain.id, sent.id]],
  );
  assert.deepEqual(rows, [
    { id: md.id, vertical: "clinic" },
    { id: sent.id, vertical: "salon" },
    { id: plain.id, vertical: null },
  ]);
});

test("guide.publish keeps context.verticalId; a later publish without one keeps it", async () => {
  const caller = { tenant: "vertical-guides", products: ["clinic-desk"] };
  const guide = {
    product: "clinic-desk",
    slug: "book-visit",
    title: "Book a visit",
    area: "Start",
    markdown: "Pick a time.",
    deploy: false,
  };
  const first = await t.s.call("guide.publish", guide, { ...caller, verticalId: "clinic" });
  assert.equal(first.action, "created");
  assert.equal(first.vertical, "clinic");
  const again = await t.s.call("guide.publish", { ...guide, markdown: "Pick a day." }, caller);
  assert.equal(again.action, "updated");
  assert.equal(again.vertical, "clinic");
  const other = await t.s.call("guide.publish", { ...guide, slug: "no-vertical" }, caller);
  assert.equal(other.vertical, null);
  const { rows } = await t.s.db.query("SELECT slug, vertical FROM content.guides WHERE tenant = $1 ORDER BY slug", [
    "vertical-guides",
  ]);
  assert.deepEqual(rows, [
    { slug: "book-visit", vertical: "clinic" },
    { slug: "no-vertical", vertical: null },
  ]);
});
