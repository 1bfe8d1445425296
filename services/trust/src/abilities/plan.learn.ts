/**
 * @module trust/abilities/plan.learn
 * Records how a plan turned out and closes it. Each lesson goes to the memory service's lessons
 * inbox (`lesson.record` over gRPC, as the caller), tagged with the plan; a copy of its id, title and
 * text stays here so later plans of the same type or vertical, and QA checklists, draw on it. The
 * lessons are recorded before the plan is closed: if the memory service is unreachable the call
 * fails (503) and the plan stays open, so the call can be retried. A closed plan is 409.
 */
import type { InputOf } from "@gantry/proto/catalogue";
import { ability } from "../context.ts";
import { closedConflict, lockPlan, readPlan } from "../plans.ts";

type Lesson = NonNullable<InputOf<"plan.learn">["lessons"]>[number];

const CATEGORY_BY_TYPE: Record<string, "engineering" | "ops" | "business" | "architecture" | "security"> = {
  incident: "ops",
  migration: "engineering",
  launch: "business",
};

export default ability("plan.learn", async (input, call, ctx) => {
  const plan = await readPlan(ctx, call.tenant, input.planId);
  if (plan.status === "closed") throw closedConflict(plan);
  const tags = ["plan", ...(plan.type ? [plan.type] : []), ...(plan.vertical ? [plan.vertical] : [])];
  const recorded: { id: string; title: string; lesson: string; severity: NonNullable<Lesson["severity"]> | null }[] =
    [];
  for (const l of input.lessons ?? []) {
    const out = await ctx.memory.recordLesson(call, {
      title: l.title,
      category: CATEGORY_BY_TYPE[plan.type ?? ""] ?? "business",
      lesson: l.lesson,
      ...(l.severity ? { severity: l.severity } : {}),
      context: `Plan ${plan.id} (${input.outcome}): ${plan.goal}`.slice(0, 20_000),
      triggers: [],
      tags,
      reusable: true,
    });
    recorded.push({ id: out.id, title: l.title, lesson: l.lesson, severity: l.severity ?? null });
  }
  const now = new Date(ctx.now());
  await ctx.db.$transaction(async (tx) => {
    const locked = await lockPlan(tx, call.tenant, plan.id);
    if (locked.status === "closed") throw closedConflict(locked);
    if (recorded.length)
      await tx.planLesson.createMany({
        data: recorded.map((l) => ({
          tenant: call.tenant,
          id: l.id,
          planId: plan.id,
          type: plan.type,
          vertical: plan.vertical,
          title: l.title,
          lesson: l.lesson,
          severity: l.severity,
          createdAt: now,
        })),
        skipDuplicates: true,
      });
    await tx.plan.update({
      where: { id: plan.id },
      data: { status: "closed", outcome: input.outcome, notes: input.notes ?? null, closedAt: now, updatedAt: now },
    });
  });
  return {
    planId: plan.id,
    outcome: input.outcome,
    notes: input.notes ?? null,
    lessons: recorded.map(({ id, title, severity }) => ({ id, title, severity })),
    status: "closed" as const,
    recorded: now.toISOString(),
  };
});
