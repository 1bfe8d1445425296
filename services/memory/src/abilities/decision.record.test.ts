/**
 * decision.record and decision.list through the gateway, with the memory service embedding through
 * the OpenAI-compatible HTTP adapter (a local server speaking /v1/embeddings): D-NNN gapless and
 * unique under concurrency, supersedes rules, listing newest first and semantically, pagination,
 * tenant isolation.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { startFakeEmbeddings, type FakeEmbeddings } from "../testing/fake-embeddings.ts";

let t: TestStack;
let fake: FakeEmbeddings;
let acme: string;
let globex: string;
let burst: string;

const record = (key: string, input: object) => t.call("decision.record", { input }, key);
const list = (key: string, input: object = {}) => t.call("decision.list", { input }, key);

before(async () => {
  fake = await startFakeEmbeddings({ apiKey: "sk-decisions" });
  t = await startTestStack({
    services: ["keys", "memory"],
    env: {
      EMBEDDER: "openai",
      EMBEDDING_URL: fake.url,
      EMBEDDING_MODEL: "text-embedding-3-small",
      EMBEDDING_API_KEY: "sk-decisions",
    },
  });
  acme = (await t.insertKey({ tenant: "acme" })).key;
  globex = (await t.insertKey({ tenant: "globex" })).key;
  burst = (await t.insertKey({ tenant: "burst" })).key;
});
after(async () => {
  await t?.stop();
  await fake?.close();
});

describe("decision.record", () => {
  test("returns D-001, D-002, … per tenant, embedded through the configured HTTP model", async () => {
    fake.requests.length = 0;
    const first = (
      await record(acme, {
        title: "Invoices go out on the 1st of each month",
        why: "Customers reconcile monthly; mid-month invoices caused support tickets.",
      }).expect(200)
    ).body.result;
    assert.equal(first.id, "D-001");
    assert.equal(first.status, "active");
    assert.equal(first.supersedes, null);
    assert.equal(first.supersededBy, null);
    assert.ok(!Number.isNaN(Date.parse(first.created)));
    assert.equal(fake.requests[0].path, "/v1/embeddings");
    assert.equal(fake.requests[0].body.dimensions, 768);
    const second = (
      await record(acme, {
        title: "Postgres is the system of record",
        why: "One database to back up and reason about.",
      }).expect(200)
    ).body.result;
    assert.equal(second.id, "D-002");
    const other = (await record(globex, { title: "Globex ships on Mondays", why: "Warehouse staffing." }).expect(200))
      .body.result;
    assert.equal(other.id, "D-001", "numbering is per tenant");
  });

  test("20 concurrent records get D-001 … D-020: no gap, no duplicate", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => record(burst, { title: `Burst decision ${i}`, why: `Reason ${i}` })),
    );
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
    const got = results.map((r) => r.body.result.id).sort();
    assert.deepEqual(
      got,
      Array.from({ length: 20 }, (_, i) => `D-${String(i + 1).padStart(3, "0")}`),
    );
    const { rows } = await t.db.query(`SELECT last FROM memory.decision_counters WHERE tenant = 'burst'`);
    assert.equal(rows[0].last, 20);
  });

  test("supersedes: marks the earlier decision superseded; unknown → 404; already superseded → 409; failures burn no number", async () => {
    const res = (
      await record(acme, {
        title: "Invoices go out on the 5th of each month",
        why: "Bank holidays on the 1st delayed payments.",
        supersedes: "D-001",
      }).expect(200)
    ).body.result;
    assert.equal(res.id, "D-003");
    assert.equal(res.supersedes, "D-001");
    const unknown = await record(acme, { title: "x", why: "y", supersedes: "D-099" }).expect(404);
    assert.equal(unknown.body.code, "not_found");
    assert.match(unknown.body.error, /D-099 is not a decision of this tenant/);
    await record(acme, { title: "x", why: "y", supersedes: "D-001" })
      .expect(409)
      .then((r) => {
        assert.match(r.body.error, /already superseded by D-003/);
        assert.match(r.body.reason, /Supersede D-003 instead/);
      });
    await record(globex, { title: "x", why: "y", supersedes: "D-002" }).expect(404); // acme's D-002 is not globex's
    await record(acme, { title: "x", why: "y", supersedes: "4" }).expect(400);
    // A number beyond the column's range names no decision: 404, not a database error (found by npm run fuzz).
    await record(acme, { title: "x", why: "y", supersedes: "D-36071020372" }).expect(404);
    await record(acme, { title: "two\nlines", why: "y" }).expect(400);
    const next = (await record(acme, { title: "Support answers within one business day", why: "SLA." }).expect(200))
      .body.result;
    assert.equal(next.id, "D-004", "refused records did not consume numbers");
  });
});

describe("decision.list", () => {
  test("newest first, superseded hidden unless asked, paginated with an opaque cursor", async () => {
    const active = (await list(acme).expect(200)).body.result;
    assert.deepEqual(
      active.decisions.map((d: { id: string }) => d.id),
      ["D-004", "D-003", "D-002"],
    );
    assert.equal(active.nextCursor, null);
    const all = (await list(acme, { includeSuperseded: true }).expect(200)).body.result;
    assert.deepEqual(
      all.decisions.map((d: { id: string }) => d.id),
      ["D-004", "D-003", "D-002", "D-001"],
    );
    const d1 = all.decisions[3];
    assert.equal(d1.status, "superseded");
    assert.equal(d1.supersededBy, "D-003");
    assert.ok(d1.superseded);
    const p1 = (await list(burst, { limit: 8 }).expect(200)).body.result;
    assert.equal(p1.decisions[0].id, "D-020");
    const p2 = (await list(burst, { limit: 8, cursor: p1.nextCursor }).expect(200)).body.result;
    const p3 = (await list(burst, { limit: 8, cursor: p2.nextCursor }).expect(200)).body.result;
    assert.equal(p3.nextCursor, null);
    const seen = [...p1.decisions, ...p2.decisions, ...p3.decisions].map((d: { id: string }) => d.id);
    assert.equal(new Set(seen).size, 20);
    assert.equal(seen.at(-1), "D-001");
    const bad = (await list(burst, { cursor: "not-a-cursor" }).expect(400)).body;
    assert.equal(bad.code, "validation_failed");
    assert.equal(bad.details[0].code, "invalid_cursor");
    // A cursor of the plain listing is not a cursor of a search (and the other way round).
    await list(burst, { query: "burst decision", cursor: p1.nextCursor }).expect(400);
  });

  test("with a query: semantic ranking (similarity), superseded excluded by default, cursor bound to the query", async () => {
    const r = (await list(acme, { query: "when are invoices sent" }).expect(200)).body.result;
    assert.equal(r.decisions[0].id, "D-003");
    assert.ok(r.decisions[0].similarity > 0);
    assert.ok(!r.decisions.some((d: { id: string }) => d.id === "D-001"));
    const withOld = (await list(acme, { query: "invoices month", includeSuperseded: true }).expect(200)).body.result;
    assert.deepEqual(
      withOld.decisions
        .slice(0, 2)
        .map((d: { id: string }) => d.id)
        .sort(),
      ["D-001", "D-003"],
    );
    const page = (await list(burst, { query: "burst decision", limit: 5 }).expect(200)).body.result;
    assert.equal(page.decisions.length, 5);
    assert.ok(page.nextCursor);
    const page2 = (await list(burst, { query: "burst decision", limit: 5, cursor: page.nextCursor }).expect(200)).body
      .result;
    assert.equal(new Set([...page.decisions, ...page2.decisions].map((d: { id: string }) => d.id)).size, 10);
    const other = (await list(burst, { query: "something else", cursor: page.nextCursor }).expect(400)).body;
    assert.equal(other.details[0].code, "invalid_cursor");
    assert.equal((await list(burst, { cursor: page.nextCursor }).expect(400)).body.details[0].code, "invalid_cursor");
  });

  test("tenants never see each other's decisions", async () => {
    const g = (await list(globex, { query: "invoices postgres support", includeSuperseded: true }).expect(200)).body
      .result;
    assert.deepEqual(
      g.decisions.map((d: { title: string }) => d.title),
      [],
    );
    const gl = (await list(globex, { includeSuperseded: true }).expect(200)).body.result;
    assert.deepEqual(
      gl.decisions.map((d: { title: string }) => d.title),
      ["Globex ships on Mondays"],
    );
  });
});
