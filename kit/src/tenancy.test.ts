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
