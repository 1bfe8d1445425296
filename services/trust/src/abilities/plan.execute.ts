/**
 * @module trust/abilities/plan.execute
 * Starts a phase whose dependencies are verified (`phaseId`), or every ready phase. A phase whose
 * expected actions have known inputs gets a run with one permit per such action (owned by the
 * calling key), whose id the phase carries as `runId`. A phase that is blocked, already started or
 * verified, or a closed plan, is 409 naming why; no ready phase at all is 409 too. With
 * `idempotencyKey`, a retry starts nothing and answers the phases the first call started
 * (`plan_executions`), with the plan as it is now.
 */
import { GantryError, idempotentCreate } from "@gantry/kit";
import { ability } from "../context.ts";
import { newId } from "../ids.ts";
import { createRun } from "../permits.ts";
import { closedConflict, lockPlan, phasesOf, planView, readPlan, type StoredPhase, settle } from "../plans.ts";

function notStartable(phase: StoredPhase, phases: readonly StoredPhase[]): GantryError | null {
  if (phase.status === "ready") return null;
  if (phase.status === "blocked") {
    const waiting = phase.dependsOn.filter((d) => phases.find((p) => p.id === d)?.status !== "verified");
    return new GantryError("conflict", `Phase ${phase.id} waits for ${waiting.join(", ")} to be verified.`, {
      reason: "Verify the phases it depends on first (plan.verify).",
    });
  }
  return new GantryError("conflict", `Phase ${phase.id} is already ${phase.status.replace("_", " ")}.`, {
    reason:
      phase.status === "verified"
        ? "Nothing to start."
        : "Verify it with evidence (plan.verify) instead of starting it again.",
  });
}

export default ability("plan.execute", async (input, call, ctx) => {
  const execution = newId("execution", ctx.now());
  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: "trust",
    call,
    ability: "plan.execute",
    input,
    recordId: execution,
    create: async (tx) => {
      const plan = await lockPlan(tx, call.tenant, input.planId);
      if (plan.status === "closed") throw closedConflict(plan);
      const phases = phasesOf(plan);
      let starting: StoredPhase[];
      if (input.phaseId !== undefined) {
        const phase = phases.find((p) => p.id === input.phaseId);
        if (!phase)
          throw new GantryError("not_found", `Plan ${plan.id} has no phase ${input.phaseId}.`, {
            reason: `Its phases are ${phases.map((p) => p.id).join(", ")}.`,
            details: [
              { path: "/input/phaseId", message: "No phase of the plan has this id", code: "record_not_found" },
            ],
          });
        const refusal = notStartable(phase, phases);
        if (refusal) throw refusal;
        starting = [phase];
      } else {
        starting = phases.filter((p) => p.status === "ready");
        if (!starting.length)
          throw new GantryError("conflict", `No phase of plan ${plan.id} is ready to start.`, {
            reason: "Phases start once the phases they depend on are verified (plan.verify).",
          });
      }
      const now = new Date(ctx.now());
      for (const phase of starting) {
        const actions = phase.actions.flatMap((a) => (a.input ? [{ ability: a.ability, input: a.input }] : []));
        if (actions.length) {
          const run = await createRun(
            ctx,
            call.tenant,
            {
              task: `Plan ${plan.id}, phase ${phase.id}: ${phase.title}`,
              keyId: call.keyId,
              requestId: call.requestId,
              actions,
            },
            tx,
          );
          phase.runId = run.id;
        }
        phase.status = "in_progress";
        phase.started = now.toISOString();
      }
      const updated = await tx.plan.update({
        where: { id: plan.id },
        data: { phases: phases as object[], status: settle(plan, phases), updatedAt: now },
      });
      const started = starting.map((p) => p.id);
      await tx.planExecution.create({
        data: { id: execution, tenant: call.tenant, planId: plan.id, started, createdAt: now },
      });
      return { started, plan: planView(updated) };
    },
    replay: async (id) => {
      const first = await ctx.db.planExecution.findFirst({ where: { id, tenant: call.tenant } });
      const plan = await readPlan(ctx, call.tenant, first?.planId ?? input.planId);
      return { started: first?.started ?? [], plan: planView(plan) };
    },
  });
  return result;
});
