/**
 * The receipt log in Postgres, as two replicas of the service write it: appends of one tenant from
 * both, concurrent and interleaved (so each replica's remembered right edge is often stale), land
 * at distinct contiguous indexes, a replayed request id keeps its first index, and the stored
 * subtree hashes give the tree of the leaves in index order (root and every audit path). A log
 * that held receipts before `log_nodes` existed gets its nodes from the migration and keeps its
 * proofs. Permits waiting with receipts are taken in the receipts' statement (one transaction), several
 * Batch calls' permits in one consume, each call answered by its own. Real Postgres, the service's
 * role under row-level security.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import pg from "pg";
import { enforceTenantIsolation, migrate, repoRoot, SERVICE_ROLE, TenantPool, withTenant } from "@gantry/kit";
import { startStack, type Stack } from "@gantry/infra/runner/stack.ts";
import { type EarlierMigrations, migrationsBefore } from "@gantry/infra/testing/migrations-before.ts";
import { LogAppender, type ReceiptRow } from "./log-append.ts";
import type { TakeArgs } from "./take-permits.ts";
import { StoredTree } from "./log-nodes.ts";
import { leafHash, rootHash, verifyInclusion } from "./merkle.ts";

let stack: Stack;
let admin: pg.Pool;
let pool: TenantPool;
let earlier: EarlierMigrations;
const MIGRATIONS = join(repoRoot(), "services/trust/prisma/migrations");

const oldLeaves = Array.from({ length: 5 }, (_, i) => leafHash(`receipt before tiles ${i}`));

before(async () => {
  stack = await startStack({ port: 0, quiet: true, services: [], gateways: 0 });
  admin = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 4 });
  admin.on("error", () => {});
  // The schema as it was before log_nodes, with a log of 5 receipts in it.
  earlier = migrationsBefore(MIGRATIONS, "20261226000000");
  await migrate(admin, "trust", earlier.dir);
  for (const [i, leaf] of oldLeaves.entries())
    await admin.query(
      `INSERT INTO trust.receipts (request_id, tenant, ability, input_hash, outcome, status, at, envelope, leaf_hash, log_index)
       VALUES ($1, 'old', 'contact.get', $2, 'succeeded', 200, now(), '{}', $3, $4)`,
      [`req_old_${i}`, "0".repeat(64), leaf.toString("hex"), i],
    );
  await admin.query(`INSERT INTO trust.logs (tenant, size) VALUES ('old', 5)`);
  await migrate(admin, "trust", MIGRATIONS);
  await enforceTenantIsolation(admin, "trust", SERVICE_ROLE);
  pool = new TenantPool({ connectionString: stack.env.DATABASE_URL, max: 8, role: SERVICE_ROLE });
  pool.on("error", () => {});
});

after(async () => {
  await pool?.end();
  await admin?.end();
  await stack?.stop();
  earlier?.remove();
});

function row(tenant: string, requestId: string): ReceiptRow {
  return {
    requestId,
    tenant,
    runId: "run_x",
    permitId: null,
    ability: "contact.get",
    inputHash: "0".repeat(64),
    resultHash: null,
    outcome: "succeeded",
    status: 200,
    at: new Date(),
    envelope: JSON.stringify({ payload: requestId }),
    leaf: leafHash(requestId),
  };
}

async function checkTree(tenant: string, leaves: Buffer[]): Promise<void> {
  const tree = await withTenant(tenant, () =>
    new StoredTree(pool, tenant, leaves.length).load((t) => {
      t.root();
      for (let i = 0; i < leaves.length; i++) t.path(i);
    }),
  );
  const root = tree.root();
  assert.deepEqual(root, rootHash(leaves), `${tenant}: the stored nodes make the root of the leaves in index order`);
  const copies = await withTenant(tenant, () =>
    pool.query("SELECT count(*)::int AS n FROM trust.log_nodes WHERE tenant = $1 AND level = 0", [tenant]),
  );
  assert.equal(copies.rows[0].n, 0, `${tenant}: a leaf is stored once, as its receipt's leaf_hash`);
  for (let i = 0; i < leaves.length; i++)
    assert.ok(verifyInclusion(i, leaves.length, leaves[i]!, tree.path(i), root), `${tenant}: leaf ${i}`);
}

test("two replicas append one tenant's receipts at distinct contiguous indexes; a replay keeps its index", async () => {
  const [a, b] = [new LogAppender(pool), new LogAppender(pool)];
  const ids = Array.from({ length: 60 }, (_, i) => `req_${i}`);
  // Concurrent on both, then strictly alternating (each replica's edge is stale every time).
  const concurrent = await Promise.all(ids.slice(0, 40).map((id, i) => (i % 2 ? a : b).append(row("acme", id))));
  const alternating: number[] = [];
  for (const [i, id] of ids.slice(40).entries()) alternating.push(await (i % 2 ? a : b).append(row("acme", id)));
  const indexes = [...concurrent, ...alternating];
  assert.deepEqual(
    [...indexes].sort((x, y) => x - y),
    [...Array(60).keys()],
  );
  // A replay on the replica that did not write it, alone and within a batch of new ones.
  const first = indexes[7]!;
  assert.equal(await a.append(row("acme", ids[7]!)), first);
  assert.equal(await b.append(row("acme", ids[8]!)), indexes[8]);
  const [again, fresh] = await Promise.all([a.append(row("acme", ids[7]!)), a.append(row("acme", "req_new"))]);
  assert.equal(again, first);
  assert.equal(fresh, 60);

  const stored = await withTenant("acme", () =>
    pool.query("SELECT request_id, log_index FROM trust.receipts WHERE tenant = 'acme' ORDER BY log_index"),
  );
  assert.equal(stored.rows.length, 61);
  const leaves = stored.rows.map((r) => leafHash(r.request_id));
  await checkTree("acme", leaves);
  const { rows } = await withTenant("acme", () => pool.query("SELECT size FROM trust.logs WHERE tenant = 'acme'"));
  assert.equal(rows[0].size, 61);
});

test("a log from before log_nodes keeps its proofs (the migration built its nodes) and grows on", async () => {
  await checkTree("old", oldLeaves);
  assert.equal(await new LogAppender(pool).append(row("old", "req_after")), 5);
  await checkTree("old", [...oldLeaves, leafHash("req_after")]);
});

test("a batch where Postgres refuses one receipt still appends the others, at contiguous indexes", async () => {
  const appender = new LogAppender(pool);
  const ids = Array.from({ length: 9 }, (_, i) => `req_mixed_${i}`);
  // Sent in one tick, so they go in one batch; a NUL is a character no text or jsonb value takes.
  const outcomes = await Promise.allSettled(
    ids.map((id, i) =>
      appender.append(i === 4 ? { ...row("mixed", id), ability: "contact.get\u0000" } : row("mixed", id)),
    ),
  );
  assert.equal(outcomes[4]!.status, "rejected");
  const good = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
  assert.deepEqual(
    [...good].sort((x, y) => x - y),
    [...Array(8).keys()],
  );
  const stored = await withTenant("mixed", () =>
    pool.query("SELECT request_id, log_index FROM trust.receipts WHERE tenant = 'mixed' ORDER BY log_index"),
  );
  assert.deepEqual(
    new Map(stored.rows.map((r) => [r.request_id, r.log_index])),
    new Map(ids.flatMap((id, i) => (outcomes[i]!.status === "fulfilled" ? [[id, outcomes[i]!.value]] : []))),
    "each appended receipt is stored at the index its caller was answered",
  );
  await checkTree(
    "mixed",
    stored.rows.map((r) => leafHash(r.request_id)),
  );
});

test("permits of several Batch calls waiting with receipts are taken in the receipts' statement, each call answered its own", async () => {
  const tenant = "takes";
  const appender = new LogAppender(pool);
  await withTenant(tenant, () => appender.append(row(tenant, "req_t0")));
  const hash = "1".repeat(64);
  for (const run of ["run_t1", "run_t2"]) {
    await admin.query(
      `INSERT INTO trust.runs (id, tenant, task, key_id, request_id, created_at, expires_at)
       VALUES ($1, $2, 'takes', 'key_t', 'req_pre', now(), now() + interval '1 hour')`,
      [run, tenant],
    );
    await admin.query(
      `INSERT INTO trust.permits (id, tenant, run_id, position, ability, input_hash, status)
       VALUES ($1, $2, $3, 0, 'contact.get', $4, 'issued')`,
      [`pmt_${run}`, tenant, run, hash],
    );
  }
  const now = new Date();
  const args = (runs: string[], requestIds: string[]) =>
    [runs, runs.map(() => "key_t"), runs.map(() => "contact.get"), runs.map(() => hash), requestIds, now] as TakeArgs;
  // Sent in one tick, so they wait for one batch: run_t1's one permit goes to the first of its callers.
  const [first, second, logIndex] = await withTenant(tenant, () =>
    Promise.all([
      appender.take(tenant, args(["run_t2", "run_t1"], ["req_t1", "req_t2"])),
      appender.take(tenant, args(["run_t1"], ["req_t3"])),
      appender.append(row(tenant, "req_t4")),
    ]),
  );
  assert.deepEqual(
    [...first.taken].sort((x, y) => x.ord - y.ord),
    [
      { ord: 1, id: "pmt_run_t2" },
      { ord: 2, id: "pmt_run_t1" },
    ],
  );
  assert.deepEqual(second.taken, [], "the second call of run_t1 finds its one permit taken");
  assert.equal(logIndex, 1);
  const { rows } = await admin.query(
    `SELECT p.request_id, p.xmin::text = r.xmin::text AS together
       FROM trust.permits p, trust.receipts r WHERE p.tenant = $1 AND r.request_id = 'req_t4' ORDER BY p.request_id`,
    [tenant],
  );
  assert.deepEqual(rows, [
    { request_id: "req_t1", together: true },
    { request_id: "req_t2", together: true },
  ]);
});

test("a value Postgres refuses in one Batch call's permits fails only that call's; the other call's and the receipt go in", async () => {
  const tenant = "takes-nul";
  const appender = new LogAppender(pool);
  await withTenant(tenant, () => appender.append(row(tenant, "req_n0")));
  const hash = "2".repeat(64);
  await admin.query(
    `INSERT INTO trust.runs (id, tenant, task, key_id, request_id, created_at, expires_at)
     VALUES ('run_n1', $1, 'takes', 'key_n', 'req_pre', now(), now() + interval '1 hour')`,
    [tenant],
  );
  await admin.query(
    `INSERT INTO trust.permits (id, tenant, run_id, position, ability, input_hash, status)
     VALUES ('pmt_run_n1', $1, 'run_n1', 0, 'contact.get', $2, 'issued')`,
    [tenant, hash],
  );
  const now = new Date();
  const args = (run: string, requestId: string) =>
    [[run], ["key_n"], ["contact.get"], [hash], [requestId], now] as TakeArgs;
  // One tick: the shared statement, then the joined consume, meet the NUL (SQLSTATE 22021).
  const [bad, good, logIndex] = await withTenant(tenant, () =>
    Promise.allSettled([
      appender.take(tenant, args("run_\u0000", "req_n1")),
      appender.take(tenant, args("run_n1", "req_n2")),
      appender.append(row(tenant, "req_n3")),
    ]),
  );
  assert.equal(bad.status, "rejected");
  assert.deepEqual(good.status === "fulfilled" && good.value.taken, [{ ord: 1, id: "pmt_run_n1" }]);
  assert.deepEqual(logIndex.status === "fulfilled" && logIndex.value, 1);
  const { rows } = await admin.query("SELECT request_id, status FROM trust.permits WHERE tenant = $1", [tenant]);
  assert.deepEqual(rows, [{ request_id: "req_n2", status: "used" }]);
});
