/**
 * @module trust/abilities/plan.create
 * Turns a goal into phases from the template of its `type` (generic when none matches), with the
 * lessons earlier plans of the same type or vertical recorded (plan.learn; the vertical is the input's,
 * else the call's context.verticalId, as task.create does), the tenant's critical and
 * high consolidated lessons relevant to the goal (memory's lessons consumer merges every recorded
 * lesson by meaning; a trigger the goal names, or a goal close in meaning, makes one relevant) and
 * the tenant's most relevant decisions (memory `decision.list`, over gRPC) as checks of the first
 * phase, and the constraints and the goal as checks of the last. Deterministic by default; with
 * TRUST_PLAN_MODEL_URL an OpenAI-compatible model drafts the phases (model.ts) and `method` says
 * `model`, unless its draft is unusable, when the template is used and the reason logged. When the
 * memory service is unreachable the plan is built without decisions and consolidated lessons, and
 * says so by listing none.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { newId } from "../ids.ts";
import { draftPlan } from "../model.ts";
import { buildPhases, type DecisionRef, type LessonRef, planView, type Skeleton, settle } from "../plans.ts";

const LESSONS = 10;
const DECISIONS = 5;
const CONSOLIDATED = 5;

export default ability("plan.create", async (input, call, ctx) => {
  const constraints = input.constraints ?? [];
  const vertical = input.vertical ?? call.verticalId;
  const lessonRows = await ctx.db.planLesson.findMany({
    where: {
      tenant: call.tenant,
      ...(input.type || vertical
        ? {
            OR: [...(input.type ? [{ type: input.type }] : []), ...(vertical ? [{ vertical }] : [])],
          }
        : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: LESSONS,
  });
  let decisions: DecisionRef[] = [];
  try {
    const listed = await ctx.memory.decisions(call, {
      query: input.goal.slice(0, 4000),
      includeSuperseded: false,
      limit: DECISIONS,
    });
    decisions = listed.decisions.filter((d) => d.status === "active").map((d) => ({ id: d.id, title: d.title }));
  } catch (err) {
    ctx.log.warn(
      { requestId: call.requestId, err: err instanceof GantryError ? err.code : String(err) },
      "decision.list unavailable: plan built without decisions",
    );
  }
  const lessons: LessonRef[] = lessonRows.map((l) => ({ id: l.id, title: l.title }));
  try {
    const consolidated = await ctx.memory.consolidatedLessons(call, input.goal, "high", CONSOLIDATED);
    // A plan.learn lesson is consolidated too: listed once, as the plan's own.
    const titles = new Set(lessons.map((l) => l.title.trim().toLowerCase()));
    for (const c of consolidated)
      if (!titles.has(c.title.trim().toLowerCase()))
        lessons.push({ id: c.id, title: c.title, consolidated: { severity: c.severity, count: c.count } });
  } catch (err) {
    ctx.log.warn(
      { requestId: call.requestId, err: err instanceof GantryError ? err.code : String(err) },
      "consolidated lessons unavailable: plan built without them",
    );
  }
  let drafted: Skeleton | undefined;
  const { TRUST_PLAN_MODEL_URL: url, TRUST_PLAN_MODEL: model } = ctx.config;
  if (url) {
    const draft = await draftPlan(
      { url, model, apiKey: ctx.config.TRUST_PLAN_MODEL_API_KEY, timeoutMs: ctx.config.TRUST_PLAN_MODEL_TIMEOUT_MS },
      { ...input, vertical, constraints },
      lessons,
      decisions,
    );
    if (typeof draft === "string")
      ctx.log.warn({ requestId: call.requestId, why: draft }, "model draft unusable: plan built deterministically");
    else drafted = draft;
  }
  const { phases, sources } = buildPhases(
    { goal: input.goal, constraints, type: input.type },
    lessons,
    decisions,
    drafted,
  );
  const now = new Date(ctx.now());
  const plan = await ctx.db.plan.create({
    data: {
      id: newId("plan", now.getTime()),
      tenant: call.tenant,
      goal: input.goal,
      constraints,
      vertical: vertical ?? null,
      type: input.type ?? null,
      status: settle({ status: "planned" }, phases),
      method: drafted ? "model" : "deterministic",
      model: drafted ? model : null,
      phases: phases as object[],
      sources: sources as object,
      createdAt: now,
      updatedAt: now,
    },
  });
  return planView(plan);
});
