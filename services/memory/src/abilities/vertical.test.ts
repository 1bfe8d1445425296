/**
 * context.verticalId on decisions and lessons, through the gateway (issue 32 item 7): a decision
 * recorded under a vertical shows it (null without one), decision.list's `vertical` returns only that
 * vertical's decisions, listed and searched; a lesson keeps it in its row, its result and its event.
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
    services: ["keys", "memory"],
    env: {
      EMBEDDER: "openai",
      EMBEDDING_URL: fake.url,
      EMBEDDING_MODEL: "text-embedding-3-small",
      EMBEDDING_API_KEY: "sk-vertical",
    },
  });
  acme = (await t.insertKey({ tenant: "acme" })).key;
  globex = (await t.insertKey({ tenant: "globex" })).key;
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
