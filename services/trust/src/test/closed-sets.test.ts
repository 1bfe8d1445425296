/**
 * The closed sets of the run path's tables (a permit's status, a receipt's outcome) are refused
 * outside their values by the database itself, with the constraint names they had as table checks
 * (migration 20270116000000_check_domains makes them domains), and a permit still cannot be used
 * without the time it was used (permits_used_check, still a table check).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";

let s: ServiceHarness<Context>;
before(async () => {
  s = await startService<Context>("trust");
});
after(async () => s?.stop());

const refused = (constraint: string) => (err: { code?: string; constraint?: string }) => {
  assert.equal(err.code, "23514");
  assert.equal(err.constraint, constraint);
  return true;
};

const receipt = (requestId: string, outcome: string, logIndex: number) =>
  s.db.query(
    `INSERT INTO trust.receipts (request_id, tenant, ability, input_hash, outcome, status, at, envelope, leaf_hash, log_index)
     VALUES ($1, 'sets-co', 'contact.get', 'h', $2, 200, now(), '{}', 'l', $3)`,
    [requestId, outcome, logIndex],
  );

test("a permit status or a receipt outcome outside its set is refused by the database, under its constraint name", async () => {
  const run = (await s.call(
    "trust.preflight",
    { task: "sets", actions: [{ ability: "contact.get", input: { id: "ctc_sets" } }] },
    { tenant: "sets-co" },
  )) as { id: string };
  const permit = `run_id = '${run.id}'`;

  await assert.rejects(
    s.db.query(`UPDATE trust.permits SET status = 'lost' WHERE ${permit}`),
    refused("permits_status_check"),
  );
  await assert.rejects(
    s.db.query(`UPDATE trust.permits SET status = 'used' WHERE ${permit}`),
    refused("permits_used_check"),
  );
  await assert.rejects(receipt("req_sets_lost", "lost", 0), refused("receipts_outcome_check"));

  // Values inside the sets still go in, and come back as text.
  await s.db.query(`UPDATE trust.permits SET status = 'used', used_at = now() WHERE ${permit}`);
  await receipt("req_sets_failed", "failed", 0);
  const { rows } = await s.db.query<{ status: string; outcome: string }>(
    `SELECT p.status, r.outcome FROM trust.permits p, trust.receipts r WHERE p.${permit} AND r.request_id = 'req_sets_failed'`,
  );
  assert.deepEqual(rows, [{ status: "used", outcome: "failed" }]);
});
