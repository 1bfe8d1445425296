/**
 * trust.preflight on the one-service harness: a run and its permits are written even when the
 * database is slow to take them (another transaction holds the permits table for longer than an
 * interactive transaction's time limit), as on a loaded machine while the bench prepares its runs.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";

let s: ServiceHarness<unknown>;
before(async () => {
  s = await startService("trust");
});
after(async () => s?.stop());

test("a preflight that waits 6 s for the database still creates its run and every permit", async () => {
  const holder = await s.db.connect();
  try {
    await holder.query("BEGIN");
    // Blocks the run's inserts (ROW EXCLUSIVE) until released, as a starved database would delay them.
    await holder.query("LOCK TABLE trust.runs IN SHARE MODE");
    const actions = Array.from({ length: 3 }, (_, i) => ({ ability: "contact.get", input: { id: `ctc_${i}` } }));
    const pending = s.call("trust.preflight", { task: "slow database", actions }, { tenant: "acme" });
    await new Promise((r) => setTimeout(r, 6_000));
    await holder.query("COMMIT");
    const run = (await pending) as { id: string; permits: unknown[] };
    assert.equal(run.permits.length, 3);
    const { rows } = await s.db.query("SELECT count(*)::int AS n FROM trust.permits WHERE run_id = $1", [run.id]);
    assert.equal(rows[0].n, 3);
  } finally {
    holder.release();
  }
});
