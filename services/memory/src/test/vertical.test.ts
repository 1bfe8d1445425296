/**
 * context.verticalId through the gateway (issue 32 item 7), one stack for the records of memory,
 * payments and content: a decision recorded under a vertical shows it (null without one),
 * decision.list's `vertical` returns only that vertical's decisions, listed and searched; a lesson
 * keeps it in its row and its result; a memory keeps it and memory.search / memory.recall's
 * `vertical` returns only that vertical's memories; a payment keeps it and payment.list filters by
 * it; a guide keeps it, also through a later publish that names none.
 *
 * The rule every list follows: a record takes the call's context.verticalId, and a list or search
 * narrows to a vertical only when its input names one (`vertical`), so a call made under a vertical
 * still sees the tenant's other records unless it asks otherwise.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { startFakeEmbeddings, type FakeEmbeddings } from "../testing/fake-embeddings.ts";

let t: TestStack;
let fake: FakeEmbeddings;
let acme: string;
let globex: string;

async function ok(ability: string, input: object, key: string, context?: Record<string, string>): Promise<any> {
  const res = await t.call(ability, context ? { input, context } : { input }, key);
  assert.equal(res.status, 200, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

before(async () => {
  fake = await startFakeEmbeddings({ apiKey: "sk-vertical" });
  t = await startTestStack({
    services: ["keys", "memory", "payments", "content"],
    healthTimeoutMs: 120_000,
    env: {
      LOG_LEVEL: "error",
      PAYMENTS_TENANT_CREDENTIALS: "false",
      EMBEDDER: "openai",
      EMBEDDING_URL: fake.url,
      EMBEDDING_MODEL: "text-embedding-3-small",
      EMBEDDING_API_KEY: "sk-vertical",
    },
  });
  acme = (await t.insertKey({ tenant: "acme", collections: ["notes"], products: ["clinic-desk"] })).key;
  globex = (await t.insertKey({ tenant: "globex", collections: ["notes"] })).key;
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

test("decision.record keeps context.verticalId; decision.list filters by vertical, listed and searched", async () => {
  const clinic = await ok(
    "decision.record",
    { title: "Invoices go out monthly", why: "Clinics reconcile monthly." },
    acme,
    { verticalId: "clinic" },
  );
  assert.equal(clinic.vertical, "clinic");
  const salon = await ok(
    "decision.record",
    { title: "Invoices go out weekly", why: "Salons reconcile weekly." },
    acme,
    { verticalId: "salon" },
  );
  assert.equal(salon.vertical, "salon");
  const none = await ok("decision.record", { title: "Invoices are in USD", why: "One currency." }, acme);
  assert.equal(none.vertical, null);
  await ok("decision.record", { title: "Invoices go out daily", why: "Another tenant." }, globex, {
    verticalId: "clinic",
  });

  const listed = await ok("decision.list", { vertical: "clinic" }, acme);
  assert.deepEqual(
    listed.decisions.map((d: any) => [d.id, d.vertical]),
    [[clinic.id, "clinic"]],
  );
  const searched = await ok("decision.list", { vertical: "salon", query: "invoices" }, acme);
  assert.deepEqual(
    searched.decisions.map((d: any) => [d.id, d.vertical]),
    [[salon.id, "salon"]],
  );
  assert.equal((await ok("decision.list", {}, acme)).decisions.length, 3);
  const bad = await t.call("decision.list", { input: { vertical: "not a vertical" } }, acme);
  assert.equal(bad.status, 400);
});

test("lesson.record keeps context.verticalId in its row and shows it", async () => {
  const lesson = { title: "Confirm bookings by SMS", category: "ops", lesson: "Patients miss emails." };
  const r = await ok("lesson.record", lesson, acme, { verticalId: "clinic" });
  assert.equal(r.vertical, "clinic");
  const plain = await ok("lesson.record", lesson, acme);
  assert.equal(plain.vertical, null);
  const { rows } = await t.db.query(`SELECT id, vertical FROM memory.lessons WHERE id = ANY($1) ORDER BY vertical`, [
    [r.id, plain.id],
  ]);
  assert.deepEqual(rows, [
    { id: r.id, vertical: "clinic" },
    { id: plain.id, vertical: null },
  ]);
});

test("memory.save keeps context.verticalId; memory.search and memory.recall filter by vertical", async () => {
  const save = (text: string, verticalId?: string) =>
    ok("memory.save", { text, collection: "notes" }, acme, verticalId ? { verticalId } : undefined);
  const clinic = await save("Invoices are sent on the first day of every month.", "clinic");
  assert.equal(clinic.vertical, "clinic");
  const salon = await save("Salon invoices go out every Friday afternoon.", "salon");
  assert.equal(salon.vertical, "salon");
  const none = await save("Invoices are signed by the billing team.");
  assert.equal(none.vertical, null);
  await ok("memory.save", { text: "Invoices are sent on the first day of every month." }, globex, {
    verticalId: "clinic",
  });

  const query = "when are invoices sent";
  const clinicHits = await ok("memory.search", { query, collection: "notes", vertical: "clinic" }, acme);
  assert.deepEqual(
    clinicHits.hits.map((h: any) => [h.id, h.vertical]),
    [[clinic.id, "clinic"]],
  );
  // Without `vertical` the search sees the whole collection, also when the call names a vertical.
  const all = await ok("memory.search", { query, collection: "notes" }, acme, { verticalId: "clinic" });
  assert.deepEqual(
    all.hits.map((h: any) => [h.id, h.vertical]).sort(),
    [
      [clinic.id, "clinic"],
      [salon.id, "salon"],
      [none.id, null],
    ].sort(),
  );
  const recalled = await ok("memory.recall", { query, collection: "notes", vertical: "salon" }, acme);
  assert.deepEqual(
    recalled.hits.map((h: any) => h.id),
    [salon.id],
  );
  assert.match(recalled.block, /count="1"/);
  assert.match(recalled.block, /Salon invoices go out every Friday afternoon\./);
  assert.doesNotMatch(recalled.block, /first day of every month/);
  assert.deepEqual((await ok("memory.search", { query, collection: "notes", vertical: "spa" }, acme)).hits, []);

  // A later save without a vertical keeps the memory's; the row holds it.
  const updated = await ok(
    "memory.save",
    { id: clinic.id, text: "Invoices go out on the 1st.", collection: "notes" },
    acme,
  );
  assert.equal(updated.vertical, "clinic");
  const { rows } = await t.db.query(
    `SELECT id, vertical FROM memory.memories WHERE id = ANY($1) ORDER BY vertical NULLS LAST`,
    [[clinic.id, none.id]],
  );
  assert.deepEqual(rows, [
    { id: clinic.id, vertical: "clinic" },
    { id: none.id, vertical: null },
  ]);
  const bad = await t.call(
    "memory.search",
    { input: { query, collection: "notes", vertical: "not a vertical" } },
    acme,
  );
  assert.equal(bad.status, 400);
});

test("payment.initiate keeps context.verticalId; payment.list filters by vertical", async () => {
  const clinic = await ok("payment.initiate", { amount: 20, currency: "USD" }, acme, { verticalId: "clinic" });
  assert.equal(clinic.vertical, "clinic");
  const salon = await ok("payment.initiate", { amount: 30, currency: "USD" }, acme, { verticalId: "salon" });
  assert.equal(salon.vertical, "salon");
  const none = await ok("payment.initiate", { amount: 40, currency: "USD" }, acme);
  assert.equal(none.vertical, null);
  await ok("payment.initiate", { amount: 5, currency: "USD" }, globex, { verticalId: "clinic" });

  assert.equal((await ok("payment.status", { id: clinic.id }, acme)).vertical, "clinic");
  const listed = await ok("payment.list", { vertical: "clinic" }, acme);
  assert.deepEqual(
    listed.items.map((p: any) => [p.id, p.vertical]),
    [[clinic.id, "clinic"]],
  );
  const all = await ok("payment.list", {}, acme, { verticalId: "clinic" });
  assert.deepEqual(all.items.map((p: any) => p.id).sort(), [clinic.id, salon.id, none.id].sort());
});

test("guide.publish keeps context.verticalId; a later publish without one keeps it", async () => {
  const guide = {
    product: "clinic-desk",
    slug: "book-a-visit",
    title: "Book a visit",
    area: "Bookings",
    markdown: "Step: Open [[Calendar]]\nPick a free slot.",
    deploy: false,
  };
  const first = await ok("guide.publish", guide, acme, { verticalId: "clinic" });
  assert.equal(first.vertical, "clinic");
  const again = await ok("guide.publish", { ...guide, title: "Book a visit online" }, acme);
  assert.equal(again.action, "updated");
  assert.equal(again.vertical, "clinic");
  const other = await ok("guide.publish", { ...guide, slug: "opening-hours", title: "Opening hours" }, acme);
  assert.equal(other.vertical, null);
});
