/**
 * @module trust/plans
 * Plans: a goal turned into phases with dependencies, checks and the abilities each phase is
 * expected to call, built deterministically from a template (by `type`), the lessons earlier plans
 * recorded (plan.learn), the tenant's relevant critical and high consolidated lessons (memory's
 * lessons consumer, over gRPC) and the decisions of the tenant's decision log (memory service
 * `decision.list`, over gRPC): the same input, lessons and decisions give the same plan.
 *
 * A plan's phases are one JSON document in `plans.phases`; every change reads it under
 * `SELECT … FOR UPDATE` in a transaction ({@link lockPlan}), so concurrent executes and verifies of
 * one plan apply one after the other. Stored checks may carry `expects` (the ability whose
 * succeeded receipt proves them); the view leaves it out.
 */
import { GantryError } from "@gantry/kit";
import type { PLAN_OUTCOMES } from "@gantry/proto/catalogue/trust.ts";
import type { Context } from "./context.ts";
import type { Plan, Prisma } from "./db.ts";
import { type PhaseTemplate, planTemplate } from "./templates.ts";

export type PhaseStatus = "blocked" | "ready" | "in_progress" | "verified" | "failed";

export interface StoredCheck {
  id: string;
  text: string;
  source: "goal" | "constraint" | "template" | "lesson";
  sourceRef: string | null;
  status: "pending" | "passed" | "failed";
  evidence: string[];
  /** The ability whose succeeded call (a receipt) proves the check; absent: any accepted receipt of the phase. */
  expects?: string;
}

export interface StoredPhase {
  id: string;
  title: string;
  description: string;
  dependsOn: string[];
  status: PhaseStatus;
  checks: StoredCheck[];
  actions: { ability: string; input: Record<string, unknown> | null }[];
  runId: string | null;
  started: string | null;
  verified: string | null;
}

export interface Sources {
  templates: string[];
  lessons: string[];
  decisions: string[];
}

export interface LessonRef {
  id: string;
  title: string;
  /** A consolidated lesson's (memory's lessons consumer): its highest severity and how often it was recorded. */
  consolidated?: { severity: string; count: number };
}

/** What a lesson's check says: a consolidated lesson's weight is part of it. */
function lessonCheck(l: LessonRef): string {
  if (!l.consolidated) return `Apply the lesson: ${clip(l.title)}`;
  const { severity, count } = l.consolidated;
  return `Apply the ${severity} lesson (recorded ${count === 1 ? "once" : `${count} times`}): ${clip(l.title)}`;
}

export interface DecisionRef {
  id: string;
  title: string;
}

function clip(text: string, max = 160): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The shape of a plan before checks from lessons, decisions, constraints and the goal are added. */
export interface Skeleton {
  /** Template it came from; null when a model drafted it. */
  templateId: string | null;
  phases: {
    id: string;
    title: string;
    description: string;
    dependsOn: string[];
    checks: string[];
    actions: { ability: string; input: Record<string, unknown> | null }[];
  }[];
}

export function templateSkeleton(type: string | undefined): Skeleton {
  const template = planTemplate(type);
  return {
    templateId: template.id,
    phases: template.phases.map((t: PhaseTemplate) => ({
      ...t,
      dependsOn: [...t.dependsOn],
      actions: t.actions.map((ability) => ({ ability, input: null })),
    })),
  };
}

/** The phases of a new plan: pure, so the same input, lessons and decisions give the same phases. */
export function buildPhases(
  input: { goal: string; constraints: readonly string[]; type?: string },
  lessons: readonly LessonRef[],
  decisions: readonly DecisionRef[],
  skeleton: Skeleton = templateSkeleton(input.type),
): { phases: StoredPhase[]; sources: Sources } {
  const last = skeleton.phases.length - 1;
  const ref = skeleton.templateId;
  const phases = skeleton.phases.map((t, i): StoredPhase => {
    const expected = [...new Set(t.actions.map((a) => a.ability))];
    const checks: Omit<StoredCheck, "id" | "status" | "evidence">[] = [
      ...t.checks.map((text) =>
        ref
          ? { text, source: "template" as const, sourceRef: ref }
          : { text, source: "goal" as const, sourceRef: null },
      ),
      ...expected.map((ability) => ({
        text: `A ${ability} call made under a run succeeded`,
        source: "template" as const,
        sourceRef: ref,
        expects: ability,
      })),
      ...(i === 0
        ? [
            ...lessons.map((l) => ({
              text: lessonCheck(l),
              source: "lesson" as const,
              sourceRef: l.id,
            })),
            ...decisions.map((d) => ({
              text: `Respects ${d.id}: ${clip(d.title)}`,
              source: "constraint" as const,
              sourceRef: null,
            })),
          ]
        : []),
      ...(i === last
        ? [
            ...input.constraints.map((c) => ({
              text: `Constraint holds: ${clip(c, 500)}`,
              source: "constraint" as const,
              sourceRef: null,
            })),
            { text: `The goal is met: ${clip(input.goal, 500)}`, source: "goal" as const, sourceRef: null },
          ]
        : []),
    ];
    return {
      id: t.id,
      title: t.title,
      description: t.description,
      dependsOn: [...t.dependsOn],
      status: t.dependsOn.length ? "blocked" : "ready",
      checks: checks.map((c, n) => ({ id: `${t.id}.c${n + 1}`, status: "pending", evidence: [], ...c })),
      actions: t.actions.map((a) => ({ ability: a.ability, input: a.input })),
      runId: null,
      started: null,
      verified: null,
    };
  });
  return {
    phases,
    sources: {
      templates: ref ? [ref] : [],
      lessons: lessons.map((l) => l.id),
      decisions: decisions.map((d) => d.id),
    },
  };
}

/** Blocked phases whose dependencies are all verified become ready; the plan status follows the phases. */
export function settle(plan: { status: string }, phases: StoredPhase[]): string {
  const verified = new Set(phases.filter((p) => p.status === "verified").map((p) => p.id));
  for (const p of phases) if (p.status === "blocked" && p.dependsOn.every((d) => verified.has(d))) p.status = "ready";
  if (plan.status === "closed") return "closed";
  if (phases.length && phases.every((p) => p.status === "verified")) return "verified";
  return phases.some((p) => p.started) ? "in_progress" : "planned";
}

export function phasesOf(plan: Plan): StoredPhase[] {
  return plan.phases as unknown as StoredPhase[];
}

export function planView(plan: Plan) {
  return {
    id: plan.id,
    tenant: plan.tenant,
    goal: plan.goal,
    constraints: plan.constraints,
    vertical: plan.vertical,
    type: plan.type,
    status: plan.status as "planned" | "in_progress" | "verified" | "closed",
    method: plan.method as "deterministic" | "model",
    model: plan.model,
    phases: phasesOf(plan).map((p) => ({
      ...p,
      checks: p.checks.map(({ expects: _expects, ...c }) => c),
    })),
    sources: plan.sources as unknown as Sources,
    outcome: plan.outcome as (typeof PLAN_OUTCOMES)[number] | null,
    created: plan.createdAt.toISOString(),
    updated: plan.updatedAt.toISOString(),
    closed: plan.closedAt?.toISOString() ?? null,
  };
}

export function planNotFound(planId: string, path = "/input/planId"): GantryError {
  return new GantryError("not_found", `No plan ${planId} exists for this tenant.`, {
    reason: "Send a plan id plan.create returned to this tenant.",
    details: [{ path, message: "No plan of this tenant has this id", code: "record_not_found" }],
  });
}

/** The tenant's plan, read under a row lock inside `tx`; 404 when it is not one of the tenant's. */
export async function lockPlan(tx: Prisma.TransactionClient, tenant: string, planId: string): Promise<Plan> {
  const locked = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "trust"."plans" WHERE id = ${planId} AND tenant = ${tenant} FOR UPDATE`;
  if (!locked.length) throw planNotFound(planId);
  return (await tx.plan.findFirst({ where: { id: planId, tenant } }))!;
}

export async function readPlan(ctx: Context, tenant: string, planId: string, path = "/input/planId"): Promise<Plan> {
  const plan = await ctx.db.plan.findFirst({ where: { id: planId, tenant } });
  if (!plan) throw planNotFound(planId, path);
  return plan;
}

export function closedConflict(plan: Plan): GantryError {
  return new GantryError("conflict", `Plan ${plan.id} is closed (plan.learn recorded its outcome).`, {
    reason: "Create a new plan for further work.",
  });
}
