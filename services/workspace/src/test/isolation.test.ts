/**
 * Tenant isolation by construction (issue 12): a handler that forgets the tenant clause still cannot
 * read, update or delete another tenant's row. The queries run the way the service runs them: the
 * generated Prisma client over the kit's TenantPool, bound to the "workspace" schema, switched to the
 * unprivileged service role when the login role bypasses row-level security (as the local stack's
 * superuser does), inside `withTenant(...)` as the kit runs every call, and with NO where clause.
 *
 * Prisma's query promises are lazy: the query starts when something awaits it, and it takes the scope
 * of that moment. Handlers are async functions that await their queries, so their queries run in the
 * call's scope; here `as(tenant, q)` awaits inside the scope the same way (the last test shows what
 * happens otherwise: the query runs unscoped and sees nothing).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { SERVICE_ROLE, TenantPool, asSystem, bypassesRls, withTenant } from "@gantry/kit";
import { PrismaClient } from "../generated/prisma/client.ts";
import { ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "./helpers.ts";

let t: TestStack;
let k: Keys;
let tenantPool: TenantPool;
let db: PrismaClient;

before(async () => {
  t = await startWorkspaceStack();
  k = await tenantKeys(t);
  // Connected as the service is: its own login, and the same decision the service makes at start.
  const url = t.stack.databaseUrls.workspace;
  const login = new pg.Pool({ connectionString: url, max: 1 });
  const role = (await bypassesRls(login)) ? SERVICE_ROLE : undefined;
  await login.end();
  tenantPool = new TenantPool({ connectionString: url, max: 4, role });
  tenantPool.on("error", () => {});
  db = new PrismaClient({ adapter: new PrismaPg(tenantPool, { schema: "workspace" }) });
});
after(async () => {
  await db?.$disconnect();
  await tenantPool?.end();
  await t?.stop();
});

/** Runs a query in a tenant's scope the way a handler does: awaited inside the scope. */
function as<T>(tenant: string, query: () => PromiseLike<T>): Promise<T> {
  return withTenant(tenant, async () => await query());
}

/** The contact as stored, read past the policies (the test's own superuser pool). */
async function stored(id: string): Promise<{ name: string; updated_at: Date } | undefined> {
  const { rows } = await t.db.query("SELECT name, updated_at FROM workspace.contacts WHERE id = $1", [id]);
  return rows[0];
}

test("a handler that forgets the tenant clause still cannot read, update or delete another tenant's row", async () => {
  const acme = await ok(t, "contact.create", { name: "Acme Customer", email: "customer@acme.example" }, k.acme);
  const beta = await ok(t, "contact.create", { name: "Beta Customer" }, k.beta);
  const before = await stored(acme.id);
  assert.ok(before);

  // Read: beta's unfiltered findMany sees beta's contact only; acme's id looks like no row.
  const seen = await as("beta", () => db.contact.findMany());
  assert.deepEqual(
    seen.map((r) => r.id),
    [beta.id],
  );
  assert.equal(await as("beta", () => db.contact.findFirst({ where: { id: acme.id } })), null);
  assert.equal(await as("beta", () => db.contact.count()), 1);

  // Update: every row beta can reach is renamed, and only those.
  const updated = await as("beta", () => db.contact.updateMany({ data: { name: "x" } }));
  assert.equal(updated.count, 1);
  assert.equal((await stored(beta.id))?.name, "x");
  assert.deepEqual(await stored(acme.id), before);

  // The same inside an interactive transaction (how most handlers write) and through raw SQL.
  const inTx = await as("beta", () =>
    db.$transaction(async (tx) => (await tx.contact.updateMany({ data: { name: "y" } })).count),
  );
  assert.equal(inTx, 1);
  assert.deepEqual(await stored(acme.id), before);
  const raw = await as(
    "beta",
    () => db.$executeRaw`UPDATE "workspace"."contacts" SET name = 'z' WHERE id = ${acme.id}`,
  );
  assert.equal(raw, 0);

  // Delete: beta's unfiltered deleteMany removes beta's contact and nothing else.
  const deleted = await as("beta", () => db.contact.deleteMany());
  assert.equal(deleted.count, 1);
  assert.equal(await stored(beta.id), undefined);
  assert.deepEqual(await stored(acme.id), before);

  // acme still sees its contact, unchanged, through the API.
  const got = await ok(t, "contact.get", { id: acme.id }, k.acme);
  assert.deepEqual(got, acme);
});

test("a row for another tenant cannot be written, and a parent reaches its nested sub-tenants only", async () => {
  const now = new Date();
  const row = (tenant: string, id: string) => ({ id, tenant, name: "planted", createdAt: now, updatedAt: now });
  await assert.rejects(
    as("beta", () => db.contact.create({ data: row("acme", "ctc_PLANTEDBYBETA0000000000000") })),
    /row-level security/,
  );
  assert.equal(await stored("ctc_PLANTEDBYBETA0000000000000"), undefined);

  // acme writes into its own sub-tenant (what sim.generate does for acme/sim-…), not into a sibling.
  await as("acme", () => db.contact.create({ data: row("acme/sim-x", "ctc_NESTEDBYACME00000000000000") }));
  await assert.rejects(
    as("acme/shop1", () => db.contact.create({ data: row("acme", "ctc_PARENTBYSHOP10000000000000") })),
    /row-level security/,
  );
  const shop = await ok(t, "contact.create", { name: "Shop Customer" }, k.shop1);
  const acmeSees = await as("acme", () => db.contact.findMany({ select: { tenant: true } }));
  assert.ok(acmeSees.some((r) => r.tenant === "acme/shop1") && acmeSees.some((r) => r.tenant === "acme/sim-x"));
  assert.ok(acmeSees.every((r) => r.tenant === "acme" || r.tenant.startsWith("acme/")));
  const shopSees = await as("acme/shop1", () => db.contact.findMany());
  assert.deepEqual(
    shopSees.map((r) => r.id),
    [shop.id],
  );
});

test("outside any scope the client sees nothing (a forgotten scope fails closed); system scope sees all", async () => {
  assert.equal(await db.contact.count(), 0);
  assert.equal((await db.contact.updateMany({ data: { name: "nobody" } })).count, 0);
  // A Prisma query is lazy (it starts on `then`); returned un-awaited from the scope, the kit still
  // starts it inside the scope, so it sees the scope's rows and no others.
  const lazy = await withTenant("acme", () => db.contact.findMany({ select: { tenant: true } }));
  assert.ok(lazy.length > 0 && lazy.every((r) => r.tenant === "acme" || r.tenant.startsWith("acme/")));
  const all = await asSystem(async () => await db.contact.findMany({ select: { tenant: true } }));
  assert.ok(new Set(all.map((r) => r.tenant)).size >= 3);
});
