/**
 * Audit retention against real Postgres: a replica started with AUDIT_RETENTION_DAYS deletes the
 * records older than that, of every tenant, and keeps the rest (which each tenant still reads, and
 * only its own); replicas sweeping at the same moment delete each old record once between them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { asSystem, runService, withTenant } from "@gantry/kit";
import { startService } from "@gantry/infra/testing/service.ts";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { sweepAuditRecords } from "./audit-retention.ts";
import type { Context } from "./context.ts";
import service from "./service.ts";

const DAY_MS = 86_400_000;
const s = await startService<Context>("keys", { AUDIT_RETENTION_DAYS: "30" });
after(() => s.stop());

let seq = 0;
/** Inserts `n` records of `tenant` made `ageDays` ago; returns their request ids. */
async function insertRecords(tenant: string, n: number, ageDays: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => `req_retention${++seq}`);
  await s.db.query(
    `INSERT INTO keys.audit_records (request_id, tenant, key_id, ability, status, duration_ms, at)
     SELECT id, $2, 'key_retention', 'contact.get', 200, 1.5, now() - make_interval(days => $3) FROM unnest($1::text[]) id`,
    [ids, tenant, ageDays],
  );
  return ids;
}

async function present(ids: string[]): Promise<string[]> {
  const { rows } = await s.db.query(
    "SELECT request_id FROM keys.audit_records WHERE request_id = ANY($1) ORDER BY request_id",
    [ids],
  );
  return rows.map((r) => r.request_id);
}

test("a replica started with AUDIT_RETENTION_DAYS=30 deletes older records of every tenant and keeps the rest", async () => {
  const old = [...(await insertRecords("acme", 4, 45)), ...(await insertRecords("globex", 3, 31))];
  const recent = [...(await insertRecords("acme", 2, 29)), ...(await insertRecords("globex", 2, 1))];
  // A second replica, configured as the first (s.env lacks the harness's extra variables): it sweeps as it starts.
  const env = { ...process.env, ...s.env, GRPC_PORT: "0", LOG_LEVEL: "warn", AUDIT_RETENTION_DAYS: "30" };
  const replica = await runService(service, env);
  try {
    await eventually(async () => (await present(old)).length === 0, 10_000);
    assert.deepEqual(await present(recent), [...recent].sort());
    // What remains stays under row-level security: a tenant's connection sees its own records only.
    const { rows } = await withTenant("acme", () =>
      s.ctx.pool.query("SELECT request_id, tenant FROM keys.audit_records WHERE request_id = ANY($1)", [recent]),
    );
    assert.deepEqual(
      rows.map((r) => r.tenant),
      ["acme", "acme"],
    );
  } finally {
    await replica.stop();
  }
});

test("two replicas sweeping at once delete each old record once, in batches, and nothing newer", async () => {
  const old = await insertRecords("acme", 50, 400);
  const recent = await insertRecords("acme", 5, 200);
  // Older than anything the other tests insert, so the counts are this test's rows alone.
  const cutoff = new Date(Date.now() - 300 * DAY_MS);
  const [a, b] = await asSystem(() =>
    Promise.all([sweepAuditRecords(s.ctx.pool, cutoff, 7), sweepAuditRecords(s.ctx.pool, cutoff, 7)]),
  );
  // A replica that found the rest locked by the other stops early; the two together took every row.
  const left = await present(old);
  const again = left.length ? await asSystem(() => sweepAuditRecords(s.ctx.pool, cutoff, 7)) : 0;
  assert.equal(a + b + again, old.length);
  assert.deepEqual(await present(old), []);
  assert.deepEqual(await present(recent), [...recent].sort());
});

test("outside system scope the sweep deletes nothing: a tenant's connection cannot purge the log", async () => {
  const old = await insertRecords("globex", 3, 400);
  const deleted = await withTenant("initech", () => sweepAuditRecords(s.ctx.pool, new Date(), 10));
  assert.equal(deleted, 0);
  assert.equal((await present(old)).length, 3);
});
