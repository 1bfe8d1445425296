/**
 * PermitGate.Batch over gRPC against the real service and Postgres: the receipts of one call are
 * recorded together, and a receipt the service refuses (a malformed field, or one Postgres refuses)
 * fails only itself; the others of the call are in the log at contiguous indexes when the call
 * answers, and their results say so. The permits of one call, of several tenants, are each taken or
 * refused on their own, in their own tenant's scope, and a refused permit or receipt fails no item
 * of the other kind. A tenant's permit and receipt of one call commit in one transaction; when that
 * shared statement is undone (a receipt Postgres refuses, a replay), the log moved on, or another
 * replica holds the log's lock, the permit is still taken exactly once, without waiting for that
 * lock, and the receipts follow. A call carries at most 64 items.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type GantryError, makeClient, type RpcClient, sha256Hex, withTenant } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { TRUST_PROTO } from "@gantry/proto/paths";
import type { Context } from "./context.ts";
import { LogAppender } from "./log-append.ts";
import { inputHash } from "./permits.ts";
import { receiptRow } from "./receipts.ts";

let s: ServiceHarness<Context>;
let gate: RpcClient<"gantry.trust.v1.PermitGate">;

before(async () => {
  s = await startService<Context>("trust");
  gate = makeClient(TRUST_PROTO, "gantry.trust.v1.PermitGate", `127.0.0.1:${s.port}`, { signer: s.signer() });
});
after(async () => {
  gate?.close();
  await s?.stop();
});

function receipt(requestId: string, fields: { ability?: string; input_hash?: string } = {}) {
  return {
    tenant: "batch-co",
    request_id: requestId,
    run_id: "run_batch",
    permit_id: "",
    ability: fields.ability ?? "contact.get",
    input_hash: fields.input_hash ?? sha256Hex(requestId),
    result_hash: sha256Hex("{}"),
    status: 200,
    at_ms: Date.now(),
  };
}

test("one refused receipt of a Batch call fails alone; the others are in the log when it answers", async () => {
  const { receipts: results } = await gate.unary(
    "Batch",
    {
      receipts: [
        receipt("req_b1"),
        receipt("req_bad_hash", { input_hash: "not-a-digest" }),
        receipt("req_b2"),
        // Passes the service's checks; Postgres refuses the NUL (SQLSTATE 22021) for the whole batch.
        receipt("req_bad_nul", { ability: "contact.get\u0000" }),
        receipt("req_b3"),
      ],
    },
    { deadlineMs: 10_000 },
  );
  assert.deepEqual(
    results.map((r) => [r.request_id, r.error_code]),
    [
      ["req_b1", ""],
      ["req_bad_hash", "invalid_request"],
      ["req_b2", ""],
      ["req_bad_nul", results[3]!.error_code],
      ["req_b3", ""],
    ],
  );
  assert.notEqual(results[3]!.error_code, "", "the receipt Postgres refused is reported as not recorded");
  assert.match(results[1]!.error_message, /input_hash/);
  const recorded = [results[0]!, results[2]!, results[4]!].map((r) => r.log_index).sort((a, b) => a - b);
  assert.deepEqual(
    recorded,
    [0, 1, 2],
    "the recorded receipts take the log's first indexes, none left for the refused",
  );
  const { rows } = await s.db.query(
    "SELECT request_id, log_index FROM trust.receipts WHERE tenant = 'batch-co' ORDER BY log_index",
  );
  assert.deepEqual(
    rows.map((r) => r.request_id),
    [0, 1, 2].map((i) => [results[0]!, results[2]!, results[4]!].find((r) => r.log_index === i)!.request_id),
  );

  // A retry of the same call records nothing twice: the recorded ones answer their first index.
  const again = await gate.unary("Batch", { receipts: [receipt("req_b2"), receipt("req_b1")] });
  assert.deepEqual(
    again.receipts.map((r) => [r.request_id, r.log_index, r.error_code]),
    [
      ["req_b2", results[2]!.log_index, ""],
      ["req_b1", results[0]!.log_index, ""],
    ],
  );
  const { rows: count } = await s.db.query("SELECT count(*)::int AS n FROM trust.receipts WHERE tenant = 'batch-co'");
  assert.equal(count[0].n, 3);
});

/** A run of one contact.get permit for `tenant`: its id and key. */
async function oneRun(tenant: string): Promise<{ id: string; keyId: string }> {
  const created = (await s.call(
    "trust.preflight",
    { task: "gate", actions: [{ ability: "contact.get", input: { id: "ctc_gate" } }] },
    { tenant },
  )) as { id: string };
  const { rows } = await s.db.query<{ key_id: string }>("SELECT key_id FROM trust.runs WHERE id = $1", [created.id]);
  return { id: created.id, keyId: rows[0]!.key_id };
}

test("one Batch call answers each permit and receipt alone, each permit in its own tenant's scope", async () => {
  const acme = await oneRun("acme");
  const globex = await oneRun("globex");
  const hash = inputHash({ id: "ctc_gate" });
  const permit = (tenant: string, r: { id: string; keyId: string }, requestId: string) => ({
    tenant,
    key_id: r.keyId,
    run_id: r.id,
    ability: "contact.get",
    input_hash: hash,
    request_id: requestId,
  });
  const answer = await gate.unary(
    "Batch",
    {
      permits: [
        permit("acme", acme, "req_g1"),
        // Another tenant's run is as unknown as a missing one, even in the same call.
        permit("globex", acme, "req_g2"),
        { ...permit("acme", acme, "req_g3"), input_hash: "not-a-digest" },
        permit("globex", globex, "req_g4"),
        permit("acme", acme, "req_g5"),
      ],
      // The receipts of other calls ride along: a refused one fails no permit, a refused permit no receipt.
      receipts: [
        { ...receipt("req_g6"), tenant: "mixed-co" },
        { ...receipt("req_g7", { input_hash: "not-a-digest" }), tenant: "mixed-co" },
      ],
    },
    { deadlineMs: 10_000 },
  );
  const results = answer.permits;
  assert.deepEqual(
    answer.receipts.map((r) => [r.request_id, r.error_code, r.log_index]),
    [
      ["req_g6", "", 0],
      ["req_g7", "invalid_request", 0],
    ],
  );
  const { rows: logged } = await s.db.query("SELECT request_id FROM trust.receipts WHERE tenant = 'mixed-co'");
  assert.deepEqual(
    logged.map((r) => r.request_id),
    ["req_g6"],
    "the recorded receipt is in the log when the call answers",
  );
  const codes = results.map((r) => (r.error_json ? JSON.parse(r.error_json) : null));
  assert.match(results[0]!.permit_id, /^pmt_/);
  assert.equal(codes[1]?.details?.[0]?.code, "run_not_found");
  assert.equal(codes[2]?.code, "invalid_request");
  assert.match(codes[2]?.message, /input_hash/);
  assert.match(results[3]!.permit_id, /^pmt_/);
  assert.equal(codes[4]?.details?.[0]?.code, "permit_used", "the run's one permit went to the first call");
  const { rows } = await s.db.query<{ request_id: string }>(
    "SELECT request_id FROM trust.permits WHERE run_id = ANY($1) AND status = 'used' ORDER BY request_id",
    [[acme.id, globex.id]],
  );
  assert.deepEqual(
    rows.map((r) => r.request_id),
    ["req_g1", "req_g4"],
  );
});

/** A permit item of a Batch call for the one-permit run `r` of `tenant`. */
function permitOf(tenant: string, r: { id: string; keyId: string }, requestId: string) {
  return {
    tenant,
    key_id: r.keyId,
    run_id: r.id,
    ability: "contact.get",
    input_hash: inputHash({ id: "ctc_gate" }),
    request_id: requestId,
  };
}

/** A Batch call with one call's permit (of `run`) and that call's receipt. */
function permitAndReceipt(tenant: string, run: { id: string; keyId: string }, requestId: string) {
  return gate.unary("Batch", {
    permits: [permitOf(tenant, run, requestId)],
    receipts: [{ ...receipt(requestId), tenant }],
  });
}

/**
 * The tenant's first receipt: it is appended under the log's lock (this process does not know the
 * log's right edge yet); the next ones can share a statement with permits.
 */
async function firstReceipt(tenant: string, requestId: string): Promise<void> {
  await gate.unary("Batch", { receipts: [{ ...receipt(requestId), tenant }] });
}

/** A one-permit run of a tenant whose first receipt is in the log. */
async function primedRun(tenant: string, requestId: string): Promise<{ id: string; keyId: string }> {
  await firstReceipt(tenant, requestId);
  return oneRun(tenant);
}

/** The transaction that wrote the permit taken for `requestId` and the one that wrote its receipt. */
async function writers(requestId: string): Promise<{ permit: string; receipt: string }> {
  const { rows } = await s.db.query<{ permit: string; receipt: string }>(
    `SELECT (SELECT xmin::text FROM trust.permits WHERE request_id = $1) AS permit,
            (SELECT xmin::text FROM trust.receipts WHERE request_id = $1) AS receipt`,
    [requestId],
  );
  return rows[0]!;
}

test("a tenant's permit and receipt of one Batch call are written by one transaction, each answered", async () => {
  const tenant = "shared-co";
  const run = await primedRun(tenant, "req_s0");
  const answer = await permitAndReceipt(tenant, run, "req_s1");
  assert.match(answer.permits[0]!.permit_id, /^pmt_/);
  assert.deepEqual(
    answer.receipts.map((r) => [r.request_id, r.error_code, r.log_index]),
    [["req_s1", "", 1]],
  );
  const w = await writers("req_s1");
  assert.ok(w.permit, "the permit is taken for the call");
  assert.equal(w.receipt, w.permit, "the permit and the receipt commit together");
});

test("a receipt Postgres refuses in the shared statement fails alone: the permit is taken once, the others recorded", async () => {
  const tenant = "undo-co";
  const run = await primedRun(tenant, "req_u0");
  const answer = await gate.unary("Batch", {
    permits: [permitOf(tenant, run, "req_u1")],
    receipts: [
      { ...receipt("req_u2"), tenant },
      // Passes the service's checks; Postgres refuses the NUL (SQLSTATE 22021), undoing the statement.
      { ...receipt("req_u3", { ability: "contact.get\u0000" }), tenant },
      // Already in the log: a replay answers its first index.
      { ...receipt("req_u0"), tenant },
    ],
  });
  assert.match(
    answer.permits[0]!.permit_id,
    /^pmt_/,
    "the undone statement's permit is taken again, not refused as used",
  );
  assert.deepEqual(
    answer.receipts.map((r) => [r.request_id, r.error_code === "", r.log_index]),
    [
      ["req_u2", true, 1],
      ["req_u3", false, 0],
      ["req_u0", true, 0],
    ],
  );
  const { rows } = await s.db.query<{ request_id: string; status: string }>(
    "SELECT request_id, status FROM trust.permits WHERE run_id = $1",
    [run.id],
  );
  assert.deepEqual(rows, [{ request_id: "req_u1", status: "used" }]);
  const { rows: logged } = await s.db.query<{ request_id: string }>(
    "SELECT request_id FROM trust.receipts WHERE tenant = $1 ORDER BY log_index",
    [tenant],
  );
  assert.deepEqual(
    logged.map((r) => r.request_id),
    ["req_u0", "req_u2"],
  );
});

test("when another replica appended meanwhile, the shared statement still takes the permit and the receipt follows", async () => {
  const tenant = "moved-co";
  await firstReceipt(tenant, "req_m0");
  // Another replica (its own appender on the same database) appends: this process's edge is stale.
  const other = new LogAppender(s.ctx.pool);
  const fields = { ...receipt("req_m1"), tenant };
  await withTenant(tenant, () =>
    other.append(
      receiptRow(s.ctx, {
        tenant,
        requestId: fields.request_id,
        runId: fields.run_id,
        permitId: null,
        ability: fields.ability,
        inputHash: fields.input_hash,
        resultHash: fields.result_hash,
        status: 200,
        at: new Date(),
      }),
    ),
  );
  const run = await oneRun(tenant);
  const answer = await permitAndReceipt(tenant, run, "req_m2");
  assert.match(answer.permits[0]!.permit_id, /^pmt_/);
  assert.deepEqual(
    answer.receipts.map((r) => [r.request_id, r.error_code, r.log_index]),
    [["req_m2", "", 2]],
  );
  const { rows } = await s.db.query(
    "SELECT count(*)::int AS n FROM trust.permits WHERE run_id = $1 AND status = 'used'",
    [run.id],
  );
  assert.equal(rows[0].n, 1);
});

test("while another replica holds the log's lock, the permit is taken without waiting for it; the receipt follows", async () => {
  const tenant = "locked-co";
  const run = await primedRun(tenant, "req_l0");
  const holder = await s.db.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT size FROM trust.logs WHERE tenant = $1 FOR UPDATE", [tenant]);
    const answer = permitAndReceipt(tenant, run, "req_l1");
    // The permit is taken (committed) while the lock is still held; the receipt waits for it. The
    // bound only ends the test if the permit waits for the lock (it never comes while the lock is held).
    const giveUp = Date.now() + 30_000;
    for (let used = false; !used; ) {
      const { rows } = await s.db.query("SELECT status FROM trust.permits WHERE run_id = $1", [run.id]);
      used = rows[0]?.status === "used";
      if (!used) {
        assert.ok(Date.now() < giveUp, "the permit is taken while another replica holds the log's lock");
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const { rows: logged } = await s.db.query("SELECT count(*)::int AS n FROM trust.receipts WHERE tenant = $1", [
      tenant,
    ]);
    assert.equal(logged[0].n, 1, "the receipt is not appended while another holds the log");
    await holder.query("COMMIT");
    const done = await answer;
    assert.match(done.permits[0]!.permit_id, /^pmt_/);
    assert.deepEqual(
      done.receipts.map((r) => [r.request_id, r.error_code, r.log_index]),
      [["req_l1", "", 1]],
    );
  } finally {
    await holder.query("ROLLBACK").catch(() => {});
    holder.release();
  }
});

test("a call with more than 64 permits and receipts in all is refused whole, naming the bound", async () => {
  const permits = Array.from({ length: 65 }, (_, i) => ({ tenant: "acme", run_id: `run_${i}` }));
  await assert.rejects(gate.unary("Batch", { permits }), (err: GantryError) => {
    assert.equal(err.code, "invalid_request");
    assert.match(err.message, /at most 64 permits and receipts; this one has 65/);
    return true;
  });
  const receipts = Array.from({ length: 25 }, (_, i) => receipt(`req_cap_${i}`));
  await assert.rejects(gate.unary("Batch", { permits: permits.slice(0, 40), receipts }), (err: GantryError) => {
    assert.equal(err.code, "invalid_request");
    assert.match(err.message, /at most 64 permits and receipts; this one has 65/);
    return true;
  });
  const { rows } = await s.db.query("SELECT count(*)::int AS n FROM trust.receipts WHERE request_id LIKE 'req_cap_%'");
  assert.equal(rows[0].n, 0);
});
