/**
 * Prepared reads on a real Postgres, through a `TenantPool` as services use them: the rows are what
 * `pool.query` returns for the same statement, on every connection and every execution (the first
 * describes the result, later ones reuse that); row-level security still confines them to the
 * call's tenant; a failing execution rejects and leaves the connection usable; on a client checked
 * out for a transaction a statement is part of that transaction.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { SERVICE_ROLE, TenantPool, asSystem, enforceTenantIsolation, withTenant } from "../tenancy.ts";
import { preparedQuery, runPrepared } from "./prepared.ts";
import { inTransaction } from "./transaction.ts";

let t: TestStack;
let pool: TenantPool;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  await t.db.query(`CREATE SCHEMA prep_demo;
    CREATE TABLE prep_demo.things (id text PRIMARY KEY, tenant text NOT NULL, n int, flag boolean NOT NULL,
      tags text[], data jsonb NOT NULL, at timestamptz(3) NOT NULL, note text)`);
  await enforceTenantIsolation(t.db, "prep_demo", SERVICE_ROLE);
  pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 2, role: SERVICE_ROLE });
  pool.on("error", () => {}); // idle clients see Postgres stop at teardown
  await asSystem(() =>
    pool.query(
      `INSERT INTO prep_demo.things (id, tenant, n, flag, tags, data, at, note) VALUES
        ('a1', 'acme', 7, true, '{x,"y z"}', '{"b": 1, "a": [true, null]}', '2026-01-02T03:04:05.678Z', 'é ü'),
        ('a2', 'acme/shop1', NULL, false, NULL, '{}', '2026-01-02T03:04:05Z', NULL),
        ('b1', 'beta', 1, false, '{}', '[]', '2026-06-30T23:59:59.999Z', 'beta''s')`,
    ),
  );
});
after(async () => {
  await pool?.end();
  await t?.stop();
});

const COLUMNS = `id, tenant, n, flag, tags, data, at AS "atTime", note`;
const byId = preparedQuery<Record<string, unknown>, [id: string]>(
  "prep_demo.by_id",
  `SELECT ${COLUMNS} FROM prep_demo.things WHERE id = $1`,
);
const all = preparedQuery<Record<string, unknown>, []>(
  "prep_demo.all",
  `SELECT ${COLUMNS} FROM prep_demo.things ORDER BY id`,
);

test("rows are what pool.query returns, on every connection and execution", async () => {
  const expected = await asSystem(() => pool.query(`SELECT ${COLUMNS} FROM prep_demo.things ORDER BY id`));
  assert.equal(expected.rows.length, 3);
  // Concurrent executions use both connections, first ones describing the result, later ones not.
  const results = await asSystem(() => Promise.all(Array.from({ length: 12 }, () => all(pool))));
  for (const rows of results) assert.deepEqual(rows, expected.rows);
  const [a1] = await asSystem(() => byId(pool, "a1"));
  assert.deepEqual(a1, expected.rows[0]);
  assert.ok(a1.atTime instanceof Date);
  assert.equal((a1.atTime as Date).toISOString(), "2026-01-02T03:04:05.678Z");
  assert.deepEqual(a1.tags, ["x", "y z"]);
  assert.deepEqual(a1.data, { a: [true, null], b: 1 });
  assert.deepEqual(await asSystem(() => byId(pool, "none")), []);
});

test("row-level security confines a prepared read to the call's tenant", async () => {
  const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.id);
  assert.deepEqual(ids(await withTenant("acme", () => all(pool))), ["a1", "a2"], "acme and its sub-tenant");
  assert.deepEqual(ids(await withTenant("acme/shop1", () => all(pool))), ["a2"]);
  assert.deepEqual(await withTenant("beta", () => byId(pool, "a1")), [], "another tenant's id reads as no row");
  assert.deepEqual(await all(pool), [], "outside any scope nothing is visible");
  // The scope follows each call, whichever connection it gets.
  const mixed = await Promise.all(
    ["acme", "beta", "acme", "beta"].map((tenant) => withTenant(tenant, async () => ids(await all(pool)))),
  );
  assert.deepEqual(mixed, [["a1", "a2"], ["b1"], ["a1", "a2"], ["b1"]]);
});

test("parameters are serialised as pool.query serialises them", async () => {
  const echo = preparedQuery<{ at: Date; data: unknown; tags: string[]; n: number | null }, unknown[]>(
    "prep_demo.echo",
    "SELECT $1::timestamptz AS at, $2::jsonb AS data, $3::text[] AS tags, $4::int AS n",
  );
  const at = new Date("2026-03-04T05:06:07.089Z");
  const [row] = await echo(pool, at, { k: "v" }, ["a", "b,c"], null);
  assert.deepEqual(row, { at, data: { k: "v" }, tags: ["a", "b,c"], n: null });
});

test("a failing execution rejects and leaves its connection usable", async () => {
  const asInt = preparedQuery<{ n: number }, [value: unknown]>("prep_demo.as_int", "SELECT $1::int AS n");
  await assert.rejects(asInt(pool, "not a number"), /invalid input syntax for type integer/);
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  await assert.rejects(asInt(pool, circular), /circular/i);
  // Both connections, every statement, still answer.
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => asInt(pool, i)));
  assert.deepEqual(
    answers.map(([r]) => r.n),
    [0, 1, 2, 3, 4, 5],
  );
  assert.deepEqual(await asSystem(() => byId(pool, "b1")).then((rows) => rows.map((r) => r.id)), ["b1"]);
});

test("a name stands for one statement text", async () => {
  assert.throws(() => runPrepared(pool, "prep_demo.by_id", "SELECT 1", []), /another text/);
});

test("on a checked-out client a statement joins its transaction: a rollback undoes it", async () => {
  const insert = preparedQuery<{ id: string }, [id: string]>(
    "prep_demo.insert",
    `INSERT INTO prep_demo.things (id, tenant, flag, data, at) VALUES ($1, 'acme', true, '{}', now()) RETURNING id`,
  );
  await assert.rejects(
    withTenant("acme", () =>
      inTransaction(pool, async (client) => {
        assert.deepEqual(await insert(client, "tx1"), [{ id: "tx1" }]);
        // Seen inside the transaction, by the same client.
        assert.equal((await byId(client, "tx1")).length, 1);
        throw new Error("roll back");
      }),
    ),
    /roll back/,
  );
  assert.deepEqual(await asSystem(() => byId(pool, "tx1")), []);
  await withTenant("acme", () => inTransaction(pool, (client) => insert(client, "tx2")));
  assert.equal((await asSystem(() => byId(pool, "tx2"))).length, 1);
});
