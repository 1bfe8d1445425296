/**
 * The key event trail under row-level security (issue 27, item 8): every row carries its key's
 * tenant, set by the database from the key (a writer cannot name another), and a tenant-scoped
 * connection sees only its own tenant's trail. Before, key_events had no tenant column, so any
 * scope read every tenant's revocation reasons and actors.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { withTenant } from "@gantry/kit";
import { startService } from "@gantry/infra/testing/service.ts";
import type { Context } from "./context.ts";

// The service's own pool (its login, its role, its tenant scoping), as its handlers use it.
const t = await startService<Context>("keys");
const pool = t.ctx.pool;
const key = async (tenant: string) =>
  (
    await t.db.query(
      `INSERT INTO keys.api_keys (id, tenant, name, prefix, secret_hash, scopes, created_at)
       VALUES ($1, $2, $3, 'gk_test', $4, ARRAY['*'], now()) RETURNING id`,
      [`key_${tenant}evt`, tenant, `${tenant} key`, `hash-${tenant}-evt`],
    )
  ).rows[0] as { id: string };
const acme = await key("acme");
const globex = await key("globex");
after(() => t.stop());

test("each event takes its key's tenant from the database, whatever the writer says", async () => {
  await t.db.query(
    `INSERT INTO keys.key_events (key_id, kind, reason, tenant) VALUES ($1, 'revoked', 'acme reason', 'globex')`,
    [acme.id],
  );
  await t.db.query(`INSERT INTO keys.key_events (key_id, kind, reason) VALUES ($1, 'revoked', 'globex reason')`, [
    globex.id,
  ]);
  const { rows } = await t.db.query(
    `SELECT key_id, tenant FROM keys.key_events WHERE kind = 'revoked' ORDER BY key_id`,
  );
  const byKey = Object.fromEntries(rows.map((r) => [r.key_id, r.tenant]));
  assert.equal(byKey[acme.id], "acme");
  assert.equal(byKey[globex.id], "globex");
});

test("a tenant-scoped connection reads only its own tenant's trail", async () => {
  const seen = await withTenant(
    "acme",
    async () => (await pool.query(`SELECT key_id, reason FROM keys.key_events`)).rows,
  );
  assert.ok(seen.some((r) => r.key_id === acme.id));
  assert.deepEqual(
    seen.filter((r) => r.key_id === globex.id),
    [],
    "globex's events are invisible to acme",
  );
});
