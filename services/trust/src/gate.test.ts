/**
 * PermitGate.RecordReceipts over gRPC against the real service and Postgres: the receipts of one
 * call are recorded together, and a receipt the service refuses (a malformed field, or one
 * Postgres refuses) fails only itself; the others of the call are in the log at contiguous indexes
 * and their results say so.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { makeClient, type RpcClient, sha256Hex } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { TRUST_PROTO } from "@gantry/proto/paths";
import type { Context } from "./context.ts";

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

test("one refused receipt of a RecordReceipts call fails alone; the others are in the log", async () => {
  const { results } = await gate.unary(
    "RecordReceipts",
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
  const again = await gate.unary("RecordReceipts", { receipts: [receipt("req_b2"), receipt("req_b1")] });
  assert.deepEqual(
    again.results.map((r) => [r.request_id, r.log_index, r.error_code]),
    [
      ["req_b2", results[2]!.log_index, ""],
      ["req_b1", results[0]!.log_index, ""],
    ],
  );
  const { rows: count } = await s.db.query("SELECT count(*)::int AS n FROM trust.receipts WHERE tenant = 'batch-co'");
  assert.equal(count[0].n, 3);
});
