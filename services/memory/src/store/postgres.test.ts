/**
 * The Postgres store against real Postgres and NATS: the shared behavioural suite, then what is
 * specific to it: two replicas (two store instances) kept coherent by partition notices, a replica
 * without notices catching up through its version check, and the same under row-level security
 * (the service's pool and role: calls in their tenant's scope, background work in system scope).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import pg from "pg";
import {
  SERVICE_ROLE,
  TenantPool,
  connectNats,
  createLogger,
  enforceTenantIsolation,
  migrate,
  repoRoot,
  withTenant,
  type Nats,
} from "@gantry/kit";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { startStack, type Stack } from "@gantry/infra/runner/stack.ts";
import { LexicalHashEmbedder } from "../embed/lexical.ts";
import { PostgresStore } from "./postgres.ts";
import { storeSuite } from "./store.suite.ts";

let stack: Stack;
let pool: pg.Pool;
let natsA: Nats;
let natsB: Nats;
let a: PostgresStore;
let b: PostgresStore;
const log = createLogger("memory-test", "silent");
const embedder = new LexicalHashEmbedder();

before(async () => {
  stack = await startStack({ port: 0, quiet: true, services: [], gateways: 0 });
  pool = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 8 });
  // Postgres stops at teardown; an idle client's "terminating connection" must not become an
  // uncaught exception (the service's own pool has the same listener, in kit/src/service.ts).
  pool.on("error", () => {});
  await migrate(pool, "memory", join(repoRoot(), "services/memory/prisma/migrations"));
  // As the service starts: policies on every tenant table (the superuser pool above bypasses them).
  await enforceTenantIsolation(pool, "memory", SERVICE_ROLE);
  natsA = await connectNats(stack.env.NATS_URL, "replica-a", log);
  natsB = await connectNats(stack.env.NATS_URL, "replica-b", log);
  a = new PostgresStore({ pool, log, nats: natsA });
  b = new PostgresStore({ pool, log, nats: natsB });
  await a.start();
  await b.start();
});

after(async () => {
  await a?.close();
  await b?.close();
  await natsA?.nc.close();
  await natsB?.nc.close();
  await pool?.end();
  await stack?.stop();
});

storeSuite("postgres", { store: () => a });

describe("postgres store across replicas", () => {
  const v = async (t: string) => (await embedder.embed([t], "document"))[0];
  const opts = { limit: 5, now: Date.now(), halfLifeMs: 0 };
  const base = { model: embedder.model, dimensions: 768, now: Date.now(), dedupThreshold: 0.97 };

  test("a save on one replica is searchable on the other, and a forget disappears there", async () => {
    // B loads the partition first, so it must be patched rather than loaded fresh.
    assert.deepEqual(await b.search("acme", "shared", await v("lighthouse keeper"), opts), []);
    await a.save({
      ...base,
      tenant: "acme",
      collection: "shared",
      newId: "r-1",
      text: "The lighthouse keeper logs the weather at dawn.",
      vector: await v("The lighthouse keeper logs the weather at dawn."),
    });
    await eventually(
      async () => (await b.search("acme", "shared", await v("lighthouse keeper"), opts)).some((h) => h.id === "r-1"),
      5_000,
      10,
    );
    await b.save({
      ...base,
      tenant: "acme",
      collection: "shared",
      newId: "r-2",
      text: "Harbour fees are paid quarterly.",
      vector: await v("Harbour fees are paid quarterly."),
    });
    await eventually(
      async () => (await a.search("acme", "shared", await v("harbour fees"), opts)).some((h) => h.id === "r-2"),
      5_000,
      10,
    );
    assert.equal(await b.forgetIds("acme", "shared", ["r-1"]), 1);
    await eventually(
      async () => !(await a.search("acme", "shared", await v("lighthouse keeper"), opts)).some((h) => h.id === "r-1"),
      5_000,
      10,
    );
  });

  test("writes are exact even when a replica's copy is stale: dedup sees the other replica's save", async () => {
    const quiet = new PostgresStore({ pool, log, checkIntervalMs: 0 }); // no NATS: never notified
    await quiet.start();
    try {
      const text = "Deliveries to the north warehouse happen on Tuesdays.";
      assert.deepEqual(await quiet.search("acme", "stale", await v(text), opts), []);
      const first = await a.save({
        ...base,
        tenant: "acme",
        collection: "stale",
        newId: "s-1",
        text,
        vector: await v(text),
      });
      assert.equal(first.created, true);
      const second = await quiet.save({
        ...base,
        tenant: "acme",
        collection: "stale",
        newId: "s-2",
        text,
        vector: await v(text),
      });
      assert.equal(second.deduplicated, true, "the writer reloaded the partition under the lock");
      assert.equal(second.memory.id, "s-1");
    } finally {
      await quiet.close();
    }
  });

  test("a replica without notices catches up at its version check", async () => {
    const checking = new PostgresStore({ pool, log, checkIntervalMs: 100 });
    await checking.start();
    try {
      assert.deepEqual(await checking.search("acme", "checked", await v("sailing schedule"), opts), []);
      await a.save({
        ...base,
        tenant: "acme",
        collection: "checked",
        newId: "c-1",
        text: "The sailing schedule changes in April.",
        vector: await v("The sailing schedule changes in April."),
      });
      await eventually(
        async () => (await checking.search("acme", "checked", await v("sailing schedule"), opts)).length === 1,
        5_000,
        50,
      );
    } finally {
      await checking.close();
    }
  });

  test("the vertical is kept in the row: a patched replica and a fresh load filter by it", async () => {
    const query = await v("ferry timetable");
    // B holds the partition first, so it is patched from the rows the notice names.
    assert.deepEqual(await b.search("acme", "verticals", query, opts), []);
    for (const [id, vertical] of [
      ["vt-clinic", "clinic"],
      ["vt-salon", "salon"],
    ]) {
      const text = `The ferry timetable for the ${vertical} changes in May.`;
      await a.save({
        ...base,
        tenant: "acme",
        collection: "verticals",
        newId: id,
        text,
        vertical,
        vector: await v(text),
      });
    }
    const clinicOnly = async (store: PostgresStore) =>
      (await store.search("acme", "verticals", query, { ...opts, vertical: "clinic" })).map((h) => [h.id, h.vertical]);
    await eventually(async () => (await b.search("acme", "verticals", query, opts)).length === 2, 5_000, 10);
    assert.deepEqual(await clinicOnly(b), [["vt-clinic", "clinic"]]);
    const fresh = new PostgresStore({ pool, log, checkIntervalMs: 0 });
    await fresh.start();
    try {
      assert.deepEqual(await clinicOnly(fresh), [["vt-clinic", "clinic"]]);
    } finally {
      await fresh.close();
    }
    const { rows } = await pool.query(
      `SELECT id, vertical FROM memory.memories WHERE tenant = 'acme' AND collection = 'verticals' ORDER BY id`,
    );
    assert.deepEqual(rows, [
      { id: "vt-clinic", vertical: "clinic" },
      { id: "vt-salon", vertical: "salon" },
    ]);
  });

  test("concurrent near-duplicate saves from two replicas keep one memory", async () => {
    const text = "The backup generator is tested on the last Friday of the month.";
    const results = await Promise.all(
      Array.from({ length: 6 }, async (_, i) =>
        (i % 2 ? a : b).save({
          ...base,
          tenant: "acme",
          collection: "race",
          newId: `race-${i}`,
          text,
          vector: await v(text),
        }),
      ),
    );
    assert.equal(results.filter((r) => r.created).length, 1);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM memory.memories WHERE tenant = 'acme' AND collection = 'race'`,
    );
    assert.equal(rows[0].n, 1);
  });
});

describe("postgres store under row-level security (the service's pool and role)", () => {
  const v = async (t: string) => (await embedder.embed([t], "document"))[0];
  const opts = { limit: 5, now: Date.now(), halfLifeMs: 0 };
  const base = { model: embedder.model, dimensions: 768, now: Date.now(), dedupThreshold: 0.97 };
  let scoped: TenantPool;
  let natsC: Nats;
  let natsD: Nats;
  let c: PostgresStore;
  let d: PostgresStore;

  before(async () => {
    scoped = new TenantPool({ connectionString: stack.env.DATABASE_URL, max: 4, role: SERVICE_ROLE });
    scoped.on("error", () => {});
    natsC = await connectNats(stack.env.NATS_URL, "replica-c", log);
    natsD = await connectNats(stack.env.NATS_URL, "replica-d", log);
    // Started outside any scope on purpose: the store must choose system scope for its background
    // work itself, not depend on where start() was called.
    c = new PostgresStore({ pool: scoped, log, nats: natsC, checkIntervalMs: 0 });
    d = new PostgresStore({ pool: scoped, log, nats: natsD, checkIntervalMs: 100 });
    await c.start();
    await d.start();
  });
  after(async () => {
    await c?.close();
    await d?.close();
    await natsC?.nc.close();
    await natsD?.nc.close();
    await scoped?.end();
  });

  test("calls see their tenant only; a notice patches the other replica's copy (rows fetched in system scope)", async () => {
    const text = "The ferry timetable changes with the tide.";
    await withTenant("rls-a", async () => {
      // C (no version check: only the notice can bring the change) holds the partition first.
      assert.deepEqual(await c.search("rls-a", "notes", await v("ferry timetable"), opts), []);
      await d.save({ ...base, tenant: "rls-a", collection: "notes", newId: "rls-1", text, vector: await v(text) });
    });
    const q = await v("ferry timetable");
    await eventually(
      async () => (await withTenant("rls-a", () => c.search("rls-a", "notes", q, opts))).some((h) => h.id === "rls-1"),
      5_000,
      10,
    );
    // Another tenant's scope cannot read the partition, even naming its tenant.
    assert.deepEqual(await withTenant("rls-b", () => c.get("rls-a", "rls-1")), null);
    // Nor write into it.
    await assert.rejects(
      withTenant("rls-b", async () =>
        c.save({ ...base, tenant: "rls-a", collection: "sneaky", newId: "x", text, vector: await v(text) }),
      ),
      /row-level security/,
    );
    // Outside any scope nothing is visible (fails closed).
    assert.equal(await c.get("rls-a", "rls-1"), null);
  });

  test("the version check keeps an unchanged partition and drops a changed one, across tenants", async () => {
    const text = "Quarterly rent is paid on the first Monday.";
    await withTenant("rls-c", async () => {
      await c.save({ ...base, tenant: "rls-c", collection: "rent", newId: "rent-1", text, vector: await v(text) });
      assert.equal((await d.search("rls-c", "rent", await v("quarterly rent"), opts)).length, 1);
    });
    const cached = d.cachedPartitions;
    await new Promise((r) => setTimeout(r, 350)); // several checks: nothing changed, nothing dropped
    assert.equal(d.cachedPartitions, cached, "a check in system scope sees the partitions' versions");
    await pool.query(
      `UPDATE memory.memory_collections SET version = version + 1 WHERE tenant = 'rls-c' AND name = 'rent'`,
    );
    await eventually(async () => d.cachedPartitions < cached, 5_000, 20);
  });
});
