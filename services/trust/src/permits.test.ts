/**
 * Consuming permits on the one-service harness (real Postgres, the service's own login under
 * row-level security), alone and in batches as PermitGate.Batch takes them: permits of a
 * run are taken in position order and each once; of concurrent callers holding a run's last permit
 * exactly one gets it, whether they race in one batch or across batches, and of callers sharing a
 * run's identical permits each winner gets a different one; in a batch a refused permit fails only
 * its own call; and taking the first or the last permit of a long run touches a few buffers (issue 30: the statement once read every permit of the run, used ones included, joined
 * each to its run and sorted them: 121 buffers for the first permit of a run of 50).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { GantryError, withTenant } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "./context.ts";
import { consumePermits, inputHash } from "./permits.ts";
import { type PermitRequest, TAKE_PERMITS } from "./take-permits.ts";

let s: ServiceHarness<Context>;
before(async () => {
  s = await startService<Context>("trust");
});
after(async () => s?.stop());

const input = { id: "ctc_permit" };
let requests = 0;

/** A run of `count` permits for contact.get with {@link input}; its id and key. */
async function run(count: number): Promise<{ id: string; keyId: string }> {
  const actions = Array.from({ length: count }, () => ({ ability: "contact.get", input }));
  const created = (await s.call("trust.preflight", { task: "permits", actions }, { tenant: "acme" })) as { id: string };
  const { rows } = await s.db.query<{ key_id: string }>("SELECT key_id FROM trust.runs WHERE id = $1", [created.id]);
  return { id: created.id, keyId: rows[0]!.key_id };
}

function permitRequest(r: { id: string; keyId: string }, fields: Partial<PermitRequest> = {}): PermitRequest {
  return {
    key_id: r.keyId,
    run_id: r.id,
    ability: "contact.get",
    input_hash: inputHash(input),
    request_id: `req_permits_${++requests}`,
    ...fields,
  };
}

/** One batch, as PermitGate.Batch runs its permits for a tenant: a permit id or the refusal's detail code. */
async function consumeBatch(reqs: PermitRequest[]): Promise<string[]> {
  const outcomes = await withTenant("acme", () => consumePermits(s.ctx, "acme", reqs));
  return outcomes.map((o) => (o instanceof GantryError ? `refused:${o.details?.[0]?.code}` : o.permitId));
}

async function consume(r: { id: string; keyId: string }): Promise<string> {
  const [outcome] = await consumeBatch([permitRequest(r)]);
  if (outcome!.startsWith("refused:")) throw new Error(outcome);
  return outcome!;
}

/**
 * Shared buffers the permit statement touches for the next consume of `r`, as the service's own
 * login under row-level security; rolled back, so nothing is consumed.
 */
async function buffersOfConsume(r: { id: string; keyId: string }): Promise<number> {
  const c = new pg.Client({ connectionString: s.env.DATABASE_URL });
  await c.connect();
  try {
    await c.query("SELECT set_config('gantry.tenant', 'acme', false)");
    // A call that takes nothing first: the function's compile and its plan, once per connection (the
    // service's connections are long-lived), read catalog buffers a per-call figure should not hold.
    await c.query(TAKE_PERMITS, [
      "acme",
      ["run_none"],
      [r.keyId],
      ["contact.get"],
      [inputHash(input)],
      ["req_warm"],
      new Date(),
    ]);
    await c.query("BEGIN");
    const { rows } = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${TAKE_PERMITS}`, [
      "acme",
      [r.id],
      [r.keyId],
      ["contact.get"],
      [inputHash(input)],
      ["req_permits_explain"],
      new Date(),
    ]);
    const plan = rows[0]["QUERY PLAN"][0].Plan;
    assert.equal(plan["Actual Rows"], 1, "the statement takes a permit");
    return plan["Shared Hit Blocks"] + plan["Shared Read Blocks"];
  } finally {
    await c.query("ROLLBACK").catch(() => {});
    await c.end();
  }
}

test("a run's permits are taken in position order, each once, then the replay is refused as used", async () => {
  const r = await run(3);
  const { rows } = await s.db.query<{ id: string }>(
    "SELECT id FROM trust.permits WHERE run_id = $1 ORDER BY position",
    [r.id],
  );
  const taken = [];
  for (let i = 0; i < 3; i++) taken.push(await consume(r));
  assert.deepEqual(
    taken,
    rows.map((p) => p.id),
  );
  await assert.rejects(consume(r), /refused:permit_used/);
});

test("of 12 concurrent callers holding a run's last permit exactly one gets it", async () => {
  const r = await run(1);
  const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => consume(r)));
  assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
  for (const o of outcomes)
    if (o.status === "rejected") assert.equal((o.reason as Error).message, "refused:permit_used");
});

test("12 concurrent callers sharing a run's 5 identical permits: 5 get one each, all different", async () => {
  const r = await run(5);
  const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => consume(r)));
  const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
  assert.equal(won.length, 5);
  assert.equal(new Set(won).size, 5);
});

test("in one batch, calls of one run take its identical permits in position order; the call left without one fails alone", async () => {
  const r = await run(3);
  const other = await run(1);
  const { rows } = await s.db.query<{ id: string }>(
    "SELECT id FROM trust.permits WHERE run_id = $1 ORDER BY position",
    [r.id],
  );
  const outcomes = await consumeBatch([
    permitRequest(r),
    permitRequest(r, { input_hash: inputHash({ id: "ctc_other" }) }),
    permitRequest(r),
    permitRequest(other),
    permitRequest(r),
    permitRequest(r),
    permitRequest(other, { key_id: "key_someone_else" }),
  ]);
  assert.deepEqual(outcomes, [
    rows[0]!.id,
    "refused:permit_input_mismatch",
    rows[1]!.id,
    outcomes[3],
    rows[2]!.id,
    "refused:permit_used",
    "refused:run_other_key",
  ]);
  assert.match(outcomes[3]!, /^pmt_/, "the other run's call got its permit");
  const { rows: used } = await s.db.query<{ request_id: string }>(
    "SELECT request_id FROM trust.permits WHERE run_id = $1 AND status = 'used' ORDER BY position",
    [r.id],
  );
  assert.equal(used.length, 3, "each taken permit is marked used, with its own call's request id");
  assert.equal(new Set(used.map((u) => u.request_id)).size, 3);
});

test("of 12 callers racing for a run's last permit in one batch and across batches exactly one gets it", async () => {
  for (const batches of [[12], [4, 4, 4], [1, 5, 6]]) {
    const r = await run(1);
    const results = (
      await Promise.all(batches.map((n) => consumeBatch(Array.from({ length: n }, () => permitRequest(r)))))
    ).flat();
    assert.equal(results.filter((o) => o.startsWith("pmt_")).length, 1, `batches of ${batches}: ${results}`);
    assert.equal(results.filter((o) => o === "refused:permit_used").length, 11);
  }
});

test("taking the first or the last permit of a run of 50 touches a few buffers, not one per permit of the run", async () => {
  const r = await run(50);
  const first = await buffersOfConsume(r);
  for (let i = 0; i < 49; i++) await consume(r);
  const last = await buffersOfConsume(r);
  // 22 each on a fresh cluster, up to ~32 after the file's earlier tests leave dead row versions;
  // before permits_issued_idx the first touched 121 (every permit of the run read, each joined to
  // its run, then sorted), so half that still tells the two apart, and the last costs about the first.
  assert.ok(first <= 60 && last <= 60, `buffers: first permit ${first}, last ${last}`);
  assert.ok(Math.abs(last - first) <= 15, `flat along the run: first permit ${first}, last ${last}`);
});
