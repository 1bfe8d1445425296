/**
 * Tenant isolation by construction, on a real Postgres: a query with no tenant clause at all, run
 * the way a handler runs (inside the call's tenant scope, through the service's TenantPool, as the
 * service role a superuser login switches to), cannot read, update, delete or insert another
 * tenant's rows; nested sub-tenants are visible to their parent; code outside any scope sees nothing.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import {
  SERVICE_ROLE,
  TenantPool,
  asSystem,
  bypassesRls,
  currentScope,
  enforceTenantIsolation,
  withTenant,
} from "./tenancy.ts";
import { withCallSignal } from "./call-signal.ts";

let t: TestStack;
let pool: TenantPool;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  await t.db.query(
    "CREATE SCHEMA rls_demo; CREATE TABLE rls_demo.things (id text PRIMARY KEY, tenant text NOT NULL, name text NOT NULL)",
  );
  await t.db.query("CREATE TABLE rls_demo.globals (id text PRIMARY KEY)");
  const covered = await enforceTenantIsolation(t.db, "rls_demo", SERVICE_ROLE);
  assert.deepEqual(covered, ["things"]);
  assert.equal(await bypassesRls(t.db), true, "the test database logs in as a superuser, as the local stack does");
  pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 2, role: SERVICE_ROLE });
  pool.on("error", () => {}); // idle clients see Postgres stop at teardown
  await asSystem(() =>
    pool.query(
      "INSERT INTO rls_demo.things (id, tenant, name) VALUES ('a1','acme','a'), ('a2','acme/shop1','s'), ('b1','beta','b'), ('x1','acmex','x')",
    ),
  );
});
after(async () => {
  await pool?.end();
  await t?.stop();
});

const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

test("a read without a tenant clause returns only the scope's rows (and its nested sub-tenants')", async () => {
  const acme = await withTenant("acme", () => pool.query("SELECT id FROM rls_demo.things"));
  assert.deepEqual(ids(acme.rows), ["a1", "a2"], "acme sees acme and acme/shop1, not beta nor acmex");
  const shop = await withTenant("acme/shop1", () => pool.query("SELECT id FROM rls_demo.things"));
  assert.deepEqual(ids(shop.rows), ["a2"], "a sub-tenant does not see its parent");
  const beta = await withTenant("beta", () => pool.query("SELECT id FROM rls_demo.things WHERE id = 'a1'"));
  assert.equal(beta.rowCount, 0, "another tenant's row by id looks like no row");
});

test("update and delete without a tenant clause touch only the scope's rows", async () => {
  const updated = await withTenant("beta", () => pool.query("UPDATE rls_demo.things SET name = 'hacked'"));
  assert.equal(updated.rowCount, 1);
  const deleted = await withTenant("beta", () => pool.query("DELETE FROM rls_demo.things WHERE id IN ('a1', 'b1')"));
  assert.equal(deleted.rowCount, 1);
  const all = await asSystem(() => pool.query("SELECT id, name FROM rls_demo.things ORDER BY id"));
  assert.deepEqual(all.rows, [
    { id: "a1", name: "a" },
    { id: "a2", name: "s" },
    { id: "x1", name: "x" },
  ]);
});

test("inserting a row for another tenant is refused", async () => {
  await assert.rejects(
    withTenant("beta", () => pool.query("INSERT INTO rls_demo.things (id, tenant, name) VALUES ('evil', 'acme', 'e')")),
    /row-level security/,
  );
});

test("outside any scope nothing is visible: a forgotten scope fails closed", async () => {
  const none = await pool.query("SELECT id FROM rls_demo.things");
  assert.equal(none.rowCount, 0);
});

test("a lazy thenable returned from the scope is started inside it", async () => {
  let started: string | undefined;
  const lazy = {
    then: (ok: (v: string | undefined) => void) => {
      started = currentScope()?.kind;
      ok(started);
    },
  };
  assert.equal(await withTenant("acme", () => lazy), "tenant");
  assert.equal(started, "tenant");
});

test("the scope follows the caller, not whoever released the connection", async () => {
  // Two tenants contend for a pool of two connections many times; each must only ever see its own rows.
  const seen = await Promise.all(
    Array.from({ length: 40 }, (_, i) => {
      const tenant = i % 2 ? "acme/shop1" : "acmex";
      return withTenant(tenant, async () => ({
        tenant,
        rows: (await pool.query("SELECT tenant FROM rls_demo.things")).rows,
      }));
    }),
  );
  for (const { tenant, rows } of seen) for (const row of rows) assert.equal(row.tenant, tenant);
});

test("the policies hold for the table owner too (FORCE), and a new table is covered on the next run", async () => {
  const { rows } = await t.db.query(
    "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class WHERE relnamespace = 'rls_demo'::regnamespace AND relname = 'things'",
  );
  assert.deepEqual(rows, [{ relname: "things", relrowsecurity: true, relforcerowsecurity: true }]);
  await t.db.query("CREATE TABLE rls_demo.later (id text PRIMARY KEY, tenant text NOT NULL)");
  assert.deepEqual(await enforceTenantIsolation(t.db, "rls_demo", SERVICE_ROLE), ["later", "things"]);
});

test("a call's abort cancels the statements of the connections it holds, not of one it gave back", async () => {
  const first = new AbortController();
  const second = new AbortController();
  // The first call runs a statement to its end and gives its connection back (max 2: it is reused).
  await withCallSignal(first.signal, () => asSystem(() => pool.query("SELECT 1")));
  await withCallSignal(first.signal, () => asSystem(() => pool.query("SELECT 2")));
  const running = [1, 2].map((n) =>
    withCallSignal(second.signal, () => asSystem(() => pool.query(`SELECT pg_sleep(1.5), ${n} AS n`))),
  );
  await waitFor(async () => (await sleepers()) === 2);
  // The first call ending now holds no connection: both of the second call's statements finish.
  first.abort(new Error("first gave up"));
  const done = await Promise.all(running);
  assert.deepEqual(
    done.map((r) => r.rows[0].n),
    [1, 2],
  );
  // The second call giving up mid-statement cancels both its statements.
  const again = [3, 4].map((n) =>
    withCallSignal(second.signal, () => asSystem(() => pool.query(`SELECT pg_sleep(30), ${n} AS n`))),
  );
  const third = new AbortController();
  await waitFor(async () => (await sleepers()) === 2);
  second.abort(new Error("second gave up"));
  for (const r of await Promise.allSettled(again)) {
    assert.equal(r.status, "rejected");
    assert.match(String((r as PromiseRejectedResult).reason), /canceling statement due to user request/);
  }
  // The pool still serves, and an aborted call starts no statement.
  assert.equal((await withCallSignal(third.signal, () => asSystem(() => pool.query("SELECT 5 AS n")))).rows[0].n, 5);
  await assert.rejects(
    withCallSignal(second.signal, () => asSystem(() => pool.query("SELECT 6"))),
    /second gave up/,
  );
});

async function sleepers(): Promise<number> {
  const { rows } = await t.db.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'SELECT pg_sleep(%' AND pid <> pg_backend_pid()",
  );
  return rows[0].n;
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(await check(), "condition not reached");
}
