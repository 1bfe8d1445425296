/**
 * ConsumePermit on the one-service harness (real Postgres, the service's own login under row-level
 * security): permits of a run are taken in position order and each once; of concurrent callers
 * holding a run's last permit exactly one gets it, and of callers sharing a run's identical permits
 * each winner gets a different one; and taking the first or the last permit of a long run touches a
 * few buffers (issue 30: the statement once read every permit of the run, used ones included, joined
 * each to its run and sorted them: 121 buffers for the first permit of a run of 50).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { type GantryError, withTenant } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "./context.ts";
import { consumePermit, inputHash, TAKE_PERMIT } from "./permits.ts";

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

function consume(r: { id: string; keyId: string }) {
  return withTenant("acme", () =>
    consumePermit(s.ctx, {
      tenant: "acme",
      key_id: r.keyId,
      run_id: r.id,
      ability: "contact.get",
      input_hash: inputHash(input),
      request_id: `req_permits_${++requests}`,
    }),
  );
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
    await c.query("BEGIN");
    const { rows } = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${TAKE_PERMIT}`, [
      r.id,
      "acme",
      r.keyId,
      "contact.get",
      inputHash(input),
      new Date(),
      "req_permits_explain",
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
  for (let i = 0; i < 3; i++) taken.push((await consume(r)).permitId);
  assert.deepEqual(
    taken,
    rows.map((p) => p.id),
  );
  await assert.rejects(consume(r), (err: GantryError) => err.details?.[0]?.code === "permit_used");
});

test("of 12 concurrent callers holding a run's last permit exactly one gets it", async () => {
  const r = await run(1);
  const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => consume(r)));
  assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
  for (const o of outcomes)
    if (o.status === "rejected") assert.equal((o.reason as GantryError).details?.[0]?.code, "permit_used");
});

test("12 concurrent callers sharing a run's 5 identical permits: 5 get one each, all different", async () => {
  const r = await run(5);
  const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => consume(r)));
  const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value.permitId] : []));
  assert.equal(won.length, 5);
  assert.equal(new Set(won).size, 5);
});

test("taking the first or the last permit of a run of 50 touches a few buffers, not one per permit of the run", async () => {
  const r = await run(50);
  const first = await buffersOfConsume(r);
  for (let i = 0; i < 49; i++) await consume(r);
  const last = await buffersOfConsume(r);
  // Both 22 here; before permits_issued_idx the first touched 121 (every permit of the run read,
  // each joined to its run, then sorted).
  assert.ok(first <= 30 && last <= 30, `buffers: first permit ${first}, last ${last}`);
});
