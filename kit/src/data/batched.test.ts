/**
 * Batched by-key reads on a real Postgres, through a `TenantPool` as services use them: lookups made
 * in one turn run as one statement and each caller gets its own row; a batch never mixes tenant
 * scopes, so row-level security still confines every caller to its tenant; a failing statement
 * fails each of its callers and leaves the pool usable.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type pg from "pg";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { SERVICE_ROLE, TenantPool, asSystem, enforceTenantIsolation, withTenant } from "../tenancy.ts";
import { batchedLookup } from "./batched.ts";

let t: TestStack;
let pool: TenantPool;
/** Statements the pool ran (each batch is one `pool.query`). */
let statements = 0;

before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  await t.db.query(`CREATE SCHEMA batch_demo;
    CREATE TABLE batch_demo.things (id text PRIMARY KEY, tenant text NOT NULL, label text NOT NULL)`);
  await enforceTenantIsolation(t.db, "batch_demo", SERVICE_ROLE);
  pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 4, role: SERVICE_ROLE });
  pool.on("error", () => {}); // idle clients see Postgres stop at teardown
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements++;
    return query(...args);
  };
  await asSystem(() =>
    t.db.query(`INSERT INTO batch_demo.things (id, tenant, label) VALUES
      ('a1', 'acme', 'first'), ('a2', 'acme', 'second'), ('a3', 'acme/shop1', 'nested'), ('b1', 'beta', 'theirs')`),
  );
  await asSystem(() =>
    t.db.query(
      `INSERT INTO batch_demo.things (id, tenant, label) SELECT 'n' || g, 'acme', 'n' || g FROM generate_series(1, 300) g`,
    ),
  );
});
after(async () => {
  await pool?.end();
  await t?.stop();
});

type Thing = { id: string; tenant: string; label: string };
const byId = batchedLookup<Thing>(
  "batch_demo.by_id",
  "SELECT id, tenant, label FROM batch_demo.things WHERE id = ANY($1)",
  (row) => row.id,
);
const byIdIn = batchedLookup<Thing, [tenant: string]>(
  "batch_demo.by_id_in",
  "SELECT id, tenant, label FROM batch_demo.things WHERE id = ANY($1) AND tenant = $2",
  (row) => row.id,
);

async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; statements: number }> {
  const before = statements;
  const value = await fn();
  return { value, statements: statements - before };
}

test("lookups of one turn run as one statement and each caller gets its own row, or undefined", async () => {
  const { value, statements: n } = await counted(() =>
    withTenant("acme", () =>
      Promise.all([byId(pool, "a1"), byId(pool, "a2"), byId(pool, "a1"), byId(pool, "missing"), byId(pool, "a3")]),
    ),
  );
  assert.equal(n, 1);
  assert.deepEqual(
    value.map((row) => row?.label),
    ["first", "second", "first", undefined, "nested"],
  );
  // A lone lookup waits only for the end of the turn.
  assert.equal((await withTenant("acme", () => byId(pool, "a2")))?.label, "second");
});

test("a batch never mixes tenants: row-level security answers each caller for its own tenant", async () => {
  const { value, statements: n } = await counted(() =>
    Promise.all([
      withTenant("acme", () => byId(pool, "b1")),
      withTenant("beta", () => byId(pool, "b1")),
      withTenant("beta", () => byId(pool, "a1")),
      withTenant("acme", () => byId(pool, "a1")),
      asSystem(() => byId(pool, "b1")),
      byId(pool, "a1"), // no scope at all sees no tenant's rows
    ]),
  );
  assert.equal(n, 4); // acme, beta, system, none
  assert.deepEqual(
    value.map((row) => row?.tenant),
    [undefined, "beta", undefined, "acme", "beta", undefined],
  );
});

test("calls with different other parameters are batched apart", async () => {
  const { value, statements: n } = await counted(() =>
    withTenant("acme", () =>
      Promise.all([byIdIn(pool, "a3", "acme"), byIdIn(pool, "a3", "acme/shop1"), byIdIn(pool, "a1", "acme")]),
    ),
  );
  assert.equal(n, 2);
  assert.deepEqual(
    value.map((row) => row?.label),
    [undefined, "nested", "first"],
  );
});

test("a busy turn is split into statements of at most 256 keys", async () => {
  const ids = Array.from({ length: 300 }, (_, i) => `n${i + 1}`);
  const { value, statements: n } = await counted(() =>
    withTenant("acme", () => Promise.all(ids.map((id) => byId(pool, id)))),
  );
  assert.equal(n, 2);
  assert.deepEqual(
    value.map((row) => row?.label),
    ids,
  );
});

test("a failing statement fails every caller of its batch and the pool stays usable", async () => {
  const broken = batchedLookup<Thing>(
    "batch_demo.broken",
    "SELECT id FROM batch_demo.nothing WHERE id = ANY($1)",
    (row) => row.id,
  );
  const results = await withTenant("acme", () => Promise.allSettled([broken(pool, "a1"), broken(pool, "a2")]));
  for (const r of results) {
    assert.equal(r.status, "rejected");
    assert.match(String((r as PromiseRejectedResult).reason), /batch_demo\.nothing/);
  }
  assert.equal((await withTenant("acme", () => byId(pool, "a1")))?.label, "first");
  // A pool with other lookups still open elsewhere is untouched: each pool batches on its own.
  const other = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 1, role: SERVICE_ROLE });
  // pg's end() resolves before its clients' sockets close; one still closing sees Postgres stop at teardown.
  other.on("error", () => {});
  try {
    const [mine, theirs] = await withTenant("acme", () =>
      Promise.all([byId(pool, "a1"), byId(other as pg.Pool, "a2")]),
    );
    assert.deepEqual([mine?.label, theirs?.label], ["first", "second"]);
  } finally {
    await other.end();
  }
});
