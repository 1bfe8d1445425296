/**
 * @module trust/model
 * The optional plan drafter: an OpenAI-compatible chat-completions endpoint (`POST
 * {TRUST_PLAN_MODEL_URL}/chat/completions`, JSON mode) configured by the operator. It drafts the
 * phases (ids, titles, dependencies, checks, expected actions with their inputs when it knows them);
 * the service then checks the draft strictly (phase ids, dependencies only on earlier phases,
 * abilities of the catalogue outside the trust service, inputs valid for their ability, else
 * dropped to null) and adds the checks from lessons, decisions, constraints and the goal itself, as
 * for a template. A draft that fails the checks, or an endpoint that fails, leaves the plan to the
 * deterministic builder (plan.create logs why).
 */
import { stopsWithCall } from "@gantry/kit";
import { abilityById } from "@gantry/proto/catalogue";
import { actionHashes } from "./permits.ts";
import type { DecisionRef, LessonRef, Skeleton } from "./plans.ts";
import { templateSkeleton } from "./plans.ts";

export interface ModelConfig {
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
}

const PHASE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const MAX_PHASES = 12;

function str(v: unknown, max: number): string | null {
  return typeof v === "string" && v.trim() && v.length <= max ? v.trim() : null;
}

/** The draft as a skeleton, or why it is not one. */
export function parseDraft(content: string): Skeleton | string {
  let draft: unknown;
  try {
    draft = JSON.parse(content);
  } catch {
    return "the answer is not JSON";
  }
  const phases = (draft as { phases?: unknown })?.phases;
  if (!Array.isArray(phases) || phases.length === 0 || phases.length > MAX_PHASES)
    return `the answer has no "phases" list of 1 to ${MAX_PHASES} phases`;
  const seen = new Set<string>();
  const out: Skeleton["phases"] = [];
  for (const [i, raw] of phases.entries()) {
    const p = raw as Record<string, unknown>;
    const id = typeof p.id === "string" && PHASE_ID.test(p.id) ? p.id : null;
    const title = str(p.title, 200);
    const description = str(p.description, 2000) ?? "";
    if (!id || seen.has(id) || !title) return `phase ${i} has no unique id or no title`;
    const dependsOn = Array.isArray(p.dependsOn) ? p.dependsOn : [];
    if (!dependsOn.every((d) => typeof d === "string" && seen.has(d)))
      return `phase ${id} depends on a phase that does not come before it`;
    const checks = (Array.isArray(p.checks) ? p.checks : []).map((c) => str(c, 500)).filter((c) => c !== null);
    const actions: Skeleton["phases"][number]["actions"] = [];
    for (const a of Array.isArray(p.actions) ? p.actions : []) {
      const ability = (a as { ability?: unknown })?.ability;
      const def = typeof ability === "string" ? abilityById.get(ability) : undefined;
      if (!def || def.service === "trust")
        return `phase ${id} expects "${String(ability)}", not an ability it can call`;
      let input = (a as { input?: unknown }).input;
      if (input !== null && (typeof input !== "object" || Array.isArray(input))) input = null;
      if (input) {
        try {
          actionHashes([{ ability: def.id, input: input as Record<string, unknown> }]);
        } catch {
          input = null; // an input its ability would refuse: keep the action, not the input
        }
      }
      actions.push({ ability: def.id, input: input as Record<string, unknown> | null });
    }
    seen.add(id);
    out.push({ id, title, description, dependsOn: dependsOn as string[], checks, actions });
  }
  return { templateId: null, phases: out };
}

function prompt(
  input: { goal: string; constraints: readonly string[]; vertical?: string; type?: string },
  lessons: readonly LessonRef[],
  decisions: readonly DecisionRef[],
) {
  const example = templateSkeleton(input.type);
  return [
    {
      role: "system",
      content:
        'You plan work for an API platform. Answer with JSON only: {"phases": [{"id": "p1-short-name", "title": "…", "description": "…", "dependsOn": ["<earlier phase ids>"], "checks": ["<a check that passes or fails>"], "actions": [{"ability": "<ability id>", "input": {<exact input> } | null}]}]}. Phases come in execution order; a phase depends only on earlier ones. Use only these ability ids in actions: ' +
        [...abilityById.values()]
          .filter((a) => a.service !== "trust")
          .map((a) => a.id)
          .join(", "),
    },
    {
      role: "user",
      content: JSON.stringify({
        goal: input.goal,
        constraints: input.constraints,
        vertical: input.vertical ?? null,
        type: input.type ?? null,
        lessons: lessons.map((l) => l.title),
        decisions: decisions.map((d) => `${d.id}: ${d.title}`),
        examplePlan: example.phases,
      }),
    },
  ];
}

/** Asks the model for a draft; the draft, or why there is none. */
export async function draftPlan(
  model: ModelConfig,
  input: { goal: string; constraints: readonly string[]; vertical?: string; type?: string },
  lessons: readonly LessonRef[],
  decisions: readonly DecisionRef[],
): Promise<Skeleton | string> {
  let res: Response;
  try {
    res = await fetch(`${model.url.replace(/(?<!\/)\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(model.apiKey ? { authorization: `Bearer ${model.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: model.model,
        messages: prompt(input, lessons, decisions),
        response_format: { type: "json_object" },
        temperature: 0,
      }),
      // Stops with the call it works for too (kit/call-signal): its caller gave up.
      signal: stopsWithCall(AbortSignal.timeout(model.timeoutMs)),
    });
  } catch (err) {
    return `the model endpoint is unreachable (${(err as Error).name})`;
  }
  if (!res.ok) return `the model endpoint answered HTTP ${res.status}`;
  let body: { choices?: { message?: { content?: unknown } }[] };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    return "the model endpoint answered no JSON";
  }
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== "string") return "the model's answer has no message content";
  return parseDraft(content);
}
