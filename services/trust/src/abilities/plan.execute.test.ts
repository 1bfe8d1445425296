/**
 * plan.execute on the one-service harness: a phase still starts, with its run, when the call waits
 * longer than Prisma's default interactive-transaction limit (5 s) for the plan's row, as it does
 * behind a concurrent plan.verify of the same plan on a loaded machine.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { buildPhases } from "../plans.ts";

let s: ServiceHarness<unknown>;
before(async () => {
  s = await startService("trust");
});
after(async () => s?.stop());

test("a plan.execute that waits 6 s for the plan's row lock still starts the phase and its run", async () => {
  const { phases, sources } = buildPhases({ goal: "Start despite a slow database", constraints: [] }, [], []);
  phases[0]!.actions = [{ ability: "contact.get", input: { id: "ctc_1" } }];
  const planId = "plan_slowExecute";
  await s.db.query(
    `INSERT INTO trust.plans (id, tenant, goal, status, method, phases, sources, created_at, updated_at)
     VALUES ($1, 'acme', 'Start despite a slow database', 'planned', 'deterministic', $2, $3, now(), now())`,
    [planId, JSON.stringify(phases), JSON.stringify(sources)],
  );
  const holder = await s.db.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM trust.plans WHERE id = $1 FOR UPDATE", [planId]);
    const pending = s.call("plan.execute", { planId }, { tenant: "acme" }).then(
      (result) => ({ result: result as { started: string[]; plan: { phases: { runId: string | null }[] } } }),
      (error: unknown) => ({ error }),
    );
    await new Promise((r) => setTimeout(r, 6_000));
    await holder.query("COMMIT");
    const outcome = await pending;
    assert.ok("result" in outcome, `plan.execute failed: ${"error" in outcome ? JSON.stringify(outcome.error) : ""}`);
    assert.deepEqual(outcome.result.started, [phases[0]!.id]);
    const runId = outcome.result.plan.phases[0]!.runId;
    assert.ok(runId, "the started phase carries its run");
    const { rows } = await s.db.query("SELECT count(*)::int AS n FROM trust.permits WHERE run_id = $1", [runId]);
    assert.equal(rows[0].n, 1);
  } finally {
    holder.release();
  }
});
