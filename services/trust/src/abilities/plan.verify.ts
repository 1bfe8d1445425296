/**
 * @module trust/abilities/plan.verify
 * Checks one phase (or every phase) against its checks and the receipts given as evidence
 * (plan-verify.ts says what counts), under the plan's row lock; phases that become verified unblock
 * the phases waiting for them, and the plan is verified once every phase is.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { judge } from "../plan-verify.ts";
import { closedConflict, lockPlan, phasesOf, planView, readPlan, settle } from "../plans.ts";
import { receiptViews } from "../receipts.ts";

export default ability("plan.verify", async (input, call, ctx) => {
  const receiptIds = input.receiptIds ?? [];
  // Receipts and their proofs are read before the lock: they never change once written.
  const before = await readPlan(ctx, call.tenant, input.planId);
  const earlier = phasesOf(before).flatMap((p) => p.checks.flatMap((c) => c.evidence));
  const views = await receiptViews(ctx, call.tenant, [...receiptIds, ...earlier]);
  return ctx.db.$transaction(async (tx) => {
    const plan = await lockPlan(tx, call.tenant, input.planId);
    if (plan.status === "closed") throw closedConflict(plan);
    const phases = phasesOf(plan);
    const scope = input.phaseId === undefined ? phases : phases.filter((p) => p.id === input.phaseId);
    if (!scope.length)
      throw new GantryError("not_found", `Plan ${plan.id} has no phase ${input.phaseId}.`, {
        reason: `Its phases are ${phases.map((p) => p.id).join(", ")}.`,
        details: [{ path: "/input/phaseId", message: "No phase of the plan has this id", code: "record_not_found" }],
      });
    const now = new Date(ctx.now());
    const { receipts, checks } = judge(scope, receiptIds, views, now.toISOString());
    const updated = await tx.plan.update({
      where: { id: plan.id },
      data: { phases: phases as object[], status: settle(plan, phases), updatedAt: now },
    });
    return {
      planId: plan.id,
      phaseId: input.phaseId ?? null,
      passed: checks.length > 0 && checks.every((c) => c.status === "passed"),
      checks,
      receipts,
      plan: planView(updated),
      verified: now.toISOString(),
    };
  });
});
