/**
 * The Postgres store against real Postgres and NATS: the shared behavioural suite, then what is
 * specific to it: two replicas (two store instances) kept coherent by partition notices, and a
 * replica without notices catching up through its version check.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import pg from "pg";
import { connectNats, createLogger, migrate, repoRoot, type Nats } from "@gantry/kit";
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
    await a.save({ ...base, tenant: "acme", collection: "shared", newId: "r-1", text: "The lighthouse keeper logs the weather at dawn.", vector: await v("The lighthouse keeper logs the weather at dawn.") });
    await eventually(async () => (await b.search("acme", "shared", await v("lighthouse keeper"), opts)).some((h) => h.id === "r-1"), 5_000, 10);
    await b.save({ ...base, tenant: "acme", collection: "shared", newId: "r-2", text: "Harbour fees are paid quarterly.", vector: await v("Harbour fees are paid quarterly.") });
    await eventually(async () => (await a.search("acme", "shared", await v("harbour fees"), opts)).some((h) => h.id === "r-2"), 5_000, 10);
    assert.equal(await b.forgetIds("acme", "shared", ["r-1"]), 1);
    await eventually(async () => !(await a.search("acme", "shared", await v("lighthouse keeper"), opts)).some((h) => h.id === "r-1"), 5_000, 10);
  });

  test("writes are exact even when a replica's copy is stale: dedup sees the other replica's save", async () => {
    const quiet = new PostgresStore({ pool, log, checkIntervalMs: 0 }); // no NATS: never notified
    await quiet.start();
    try {
      const text = "Deliveries to the north warehouse happen on Tuesdays.";
      assert.deepEqual(await quiet.search("acme", "stale", await v(text), opts), []);
      const first = await a.save({ ...base, tenant: "acme", collection: "stale", newId: "s-1", text, vector: await v(text) });
      assert.equal(first.created, true);
      const second = await quiet.save({ ...base, tenant: "acme", collection: "stale", newId: "s-2", text, vector: await v(text) });
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
      await a.save({ ...base, tenant: "acme", collection: "checked", newId: "c-1", text: "The sailing schedule changes in April.", vector: await v("The sailing schedule changes in April.") });
      await eventually(async () => (await checking.search("acme", "checked", await v("sailing schedule"), opts)).length === 1, 5_000, 50);
    } finally {
      await checking.close();
    }
  });

  test("concurrent near-duplicate saves from two replicas keep one memory", async () => {
    const text = "The backup generator is tested on the last Friday of the month.";
    const results = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => (i % 2 ? a : b).save({ ...base, tenant: "acme", collection: "race", newId: `race-${i}`, text, vector: await v(text) })),
    );
    assert.equal(results.filter((r) => r.created).length, 1);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM memory.memories WHERE tenant = 'acme' AND collection = 'race'`);
    assert.equal(rows[0].n, 1);
  });
});
