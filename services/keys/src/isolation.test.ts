/**
 * Tenant isolation by construction: the keys service's connections carry the caller's tenant scope
 * and Postgres row-level security does the rest, so a query with NO tenant clause (a forgotten
 * `where: { tenant }`, raw SQL) still cannot read, change or delete another tenant's key.
 *
 * Two layers: a kit `TenantPool` connected exactly as the service connects (its own login,
 * `gantry_keys`, which the stack gives it: not the schema's owner, no BYPASSRLS), and the service
 * itself run in-process, whose `ctx.db` / `ctx.pool` handlers use.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import {
  asSystem,
  bypassesRls,
  runService,
  SERVICE_ROLE,
  TenantPool,
  withTenant,
  type CallContext,
  type RunningService,
} from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import type { Context } from "./context.ts";
import type { KeyView } from "./records.ts";
import service, { type KEYS_ENV } from "./service.ts";
import keyRevoke from "./abilities/key.revoke.ts";
import keyInspect from "./abilities/key.inspect.ts";

const t: TestStack = await startTestStack({ services: ["keys"], gateways: 0 });
const ids: Record<"acme" | "acmeShop" | "globex", string[]> = { acme: [], acmeShop: [], globex: [] };
for (let i = 0; i < 2; i++) ids.acme.push((await t.insertKey({ tenant: "acme", name: `acme ${i}` })).id);
ids.acmeShop.push((await t.insertKey({ tenant: "acme/shop1", name: "acme shop" })).id);
for (let i = 0; i < 2; i++) ids.globex.push((await t.insertKey({ tenant: "globex", name: `globex ${i}` })).id);
// The login the service gets, and the same decision the service makes at start (kit/service.ts prepareDatabase).
const serviceLogin = new pg.Pool({ connectionString: t.stack.databaseUrls.keys, max: 1 });
const pool = new TenantPool({
  connectionString: t.stack.databaseUrls.keys,
  max: 2,
  role: (await bypassesRls(serviceLogin)) ? SERVICE_ROLE : undefined,
});
await serviceLogin.end();
pool.on("error", () => {});
after(async () => {
  await pool.end().catch(() => {});
  await t.stop();
});

/** globex's rows as the test's superuser pool sees them (no policies apply to it). */
async function globexRows() {
  const { rows } = await t.db.query(
    `SELECT id, name, status, last_used_at FROM keys.api_keys WHERE tenant = 'globex' ORDER BY id`,
  );
  assert.equal(rows.length, ids.globex.length, "the comparison pool sees globex's rows");
  return rows;
}

describe("a tenant-scoped connection, no tenant clause", () => {
  test("SELECT sees only the tenant's keys and its sub-tenants'", async () => {
    const { rows } = await withTenant("acme", () => pool.query(`SELECT id, tenant FROM keys.api_keys`));
    assert.deepEqual(rows.map((r) => r.id).sort(), [...ids.acme, ...ids.acmeShop].sort());
    const other = await withTenant("globex", () => pool.query(`SELECT id FROM keys.api_keys`));
    assert.deepEqual(other.rows.map((r) => r.id).sort(), [...ids.globex].sort());
    // A sub-tenant does not see its parent.
    const shop = await withTenant("acme/shop1", () => pool.query(`SELECT id FROM keys.api_keys`));
    assert.deepEqual(
      shop.rows.map((r) => r.id),
      ids.acmeShop,
    );
    // Looked up by id, another tenant's key does not exist.
    const probe = await withTenant("acme", () =>
      pool.query(`SELECT id FROM keys.api_keys WHERE id = $1`, [ids.globex[0]]),
    );
    assert.equal(probe.rowCount, 0);
  });

  test("UPDATE and DELETE change none of another tenant's rows", async () => {
    const before = await globexRows();
    const updated = await withTenant("acme", () => pool.query(`UPDATE keys.api_keys SET name = name || ' (seen)'`));
    assert.equal(updated.rowCount, ids.acme.length + ids.acmeShop.length, "only acme's (and acme/shop1's) rows");
    const revoked = await withTenant("acme", () =>
      pool.query(`UPDATE keys.api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1`, [ids.globex[0]]),
    );
    assert.equal(revoked.rowCount, 0);
    const deleted = await withTenant("acme", () =>
      pool.query(`DELETE FROM keys.api_keys WHERE id = ANY($1::text[])`, [ids.globex]),
    );
    assert.equal(deleted.rowCount, 0);
    assert.deepEqual(await globexRows(), before);
  });

  test("an INSERT for another tenant is refused by Postgres", async () => {
    await assert.rejects(
      withTenant("acme", () =>
        pool.query(
          `INSERT INTO keys.api_keys (id, tenant, name, prefix, secret_hash) VALUES ('key_sneaky0000000000000000', 'globex', 'x', 'gk_x', 'h')`,
        ),
      ),
      /row-level security/,
    );
  });

  test("outside any scope a connection sees no key at all (fails closed); system scope sees all", async () => {
    assert.equal((await pool.query(`SELECT id FROM keys.api_keys`)).rowCount, 0);
    const all = await asSystem(() => pool.query(`SELECT DISTINCT tenant FROM keys.api_keys`));
    assert.ok(["acme", "acme/shop1", "globex", "platform"].every((x) => all.rows.some((r) => r.tenant === x)));
  });
});

describe("the keys service's own context", () => {
  let svc: RunningService<Context, typeof KEYS_ENV>;
  before(async () => {
    svc = await runService(service, {
      ...t.stack.env,
      DATABASE_URL: t.stack.databaseUrls.keys,
      GRPC_PORT: "0",
      GRPC_HOST: "127.0.0.1",
    });
  });
  after(async () => svc?.stop());

  const acmeCall = (over: Partial<CallContext> = {}): CallContext => ({
    requestId: "req_isolation",
    tenant: "acme",
    keyTenant: "acme",
    keyId: ids.acme[0],
    scopes: ["*"],
    collections: [],
    products: [],
    admin: false,
    subTenants: false,
    ...over,
  });

  test("ctx.db without a tenant clause: findMany, findFirst by id, updateMany stay in the tenant", async () => {
    const { db } = svc.ctx;
    // Prisma queries are lazy (they run when awaited), so each is awaited inside the scope, as a
    // handler does: `withTenant(t, () => db.x.findMany())` would run the query after the scope ended.
    const rows = await withTenant("acme", async () => await db.apiKey.findMany());
    assert.deepEqual([...new Set(rows.map((r) => r.tenant))].sort(), ["acme", "acme/shop1"]);
    assert.equal(
      await withTenant("acme", async () => await db.apiKey.findFirst({ where: { id: ids.globex[0] } })),
      null,
    );
    const before = await globexRows();
    const { count } = await withTenant(
      "acme",
      async () => await db.apiKey.updateMany({ data: { lastUsedAt: new Date() } }),
    );
    assert.equal(count, ids.acme.length + ids.acmeShop.length);
    const gone = await withTenant(
      "acme",
      async () => await db.apiKey.deleteMany({ where: { id: { in: ids.globex } } }),
    );
    assert.equal(gone.count, 0);
    assert.deepEqual(await globexRows(), before);
  });

  test("key.revoke of another tenant's key, run as the kit runs it, is not found and changes nothing", async () => {
    const before = await globexRows();
    await assert.rejects(
      withTenant("acme", () => keyRevoke.run({ id: ids.globex[1], confirmSelf: true }, acmeCall(), svc.ctx)),
      (err: { code?: string }) => err.code === "not_found",
    );
    assert.deepEqual(await globexRows(), before);
  });

  test("key.inspect's predecessor comes only from keys the scope sees", async () => {
    // Not a state key.rotate makes (a rotation stays in its tenant): it shows the one-statement read's
    // lookup of `rotated_to` is held to the scope as much as the key itself.
    await t.db.query(`UPDATE keys.api_keys SET rotated_to = $1 WHERE id = $2`, [ids.acme[1], ids.globex[0]]);
    try {
      const r = (await withTenant("acme", () =>
        keyInspect.run({}, acmeCall({ keyId: ids.acme[1] }), svc.ctx),
      )) as KeyView;
      assert.equal(r.id, ids.acme[1]);
      assert.equal(r.rotatedFrom, null);
    } finally {
      await t.db.query(`UPDATE keys.api_keys SET rotated_to = NULL WHERE id = $1`, [ids.globex[0]]);
    }
  });

  test("key.inspect cannot be pointed at another tenant's key", async () => {
    // A call claiming a globex key id while scoped to acme: the calling key is looked up in the
    // key's own tenant (acme), where that id does not exist.
    await assert.rejects(
      withTenant("acme", () => keyInspect.run({}, acmeCall({ keyId: ids.globex[0] }), svc.ctx)),
      (err: { code?: string }) => err.code === "unauthorized",
    );
  });
});
