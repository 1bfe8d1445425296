/**
 * @module catalogue/trust/plan
 * The trust service's abilities of the `plan` area (Plans: execution plans).
 * `proto/catalogue/trust.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { LESSON_SEVERITIES } from "../memory.ts";
import { bool, enumOf, fields, list, nullableStr, nullableTimestamp, str, timestamp } from "../output.ts";
import { array, idempotencyKey, line, nullable, object, oneOfValues, slug, text, typed } from "../schema.ts";
import { receiptIds, planId, prefixedId, nullableRunId } from "./shared.ts";

/** Outcomes plan.learn records (ours). */
export const PLAN_OUTCOMES = ["succeeded", "partial", "failed", "abandoned"] as const;

function phaseId(description: string) {
  return text(description, 64, { pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" });
}

/** Plan statuses: planned → in_progress → verified (every phase verified) → closed (plan.learn). */
export const PLAN_STATUSES = ["planned", "in_progress", "verified", "closed"] as const;

/**
 * Phase statuses: blocked (a dependency is not verified) → ready → in_progress (plan.execute) →
 * verified | failed (plan.verify; a failed phase can be verified again with more evidence).
 */
export const PHASE_STATUSES = ["blocked", "ready", "in_progress", "verified", "failed"] as const;

/** Check statuses: pending (no evidence yet), passed, failed. */
export const CHECK_STATUSES = ["pending", "passed", "failed"] as const;

/** A check of a plan phase. */
function checkProps() {
  return {
    id: str("Check id, unique within the plan (e.g. `p2-booking-widget.c1`)."),
    text: str("The check, phrased so it passes or fails."),
    source: enumOf("Where the check came from.", ["goal", "constraint", "template", "lesson"]),
    sourceRef: nullableStr("Template id or lesson id (`les_…`) it came from; null for goal and constraint checks."),
    status: enumOf("pending: no evidence yet; passed; failed (plan.verify says why).", CHECK_STATUSES),
    evidence: list(
      "Receipts (request ids) accepted as evidence for the check, in the order given.",
      str("A request id."),
    ),
  };
}

/** An execution plan with its phases. */
function plan(description: string) {
  return fields(
    {
      id: prefixedId("plan", "Plan id (`plan_…`)."),
      tenant: str("Tenant of the plan."),
      goal: str("The goal, as given."),
      constraints: list("Constraints, as given (empty when none).", str("A constraint.")),
      vertical: nullableStr(
        "Vertical the plan belongs to: the input's `vertical`, else the call's context.verticalId; null when neither.",
      ),
      type: nullableStr("Kind of plan, or null."),
      status: enumOf(
        "planned: no phase started; in_progress; verified: every phase verified; closed: outcome recorded by plan.learn.",
        PLAN_STATUSES,
      ),
      method: enumOf(
        "`deterministic`: built from templates and lessons by rules (the default; same input and lessons → same plan); `model`: drafted by the configured OpenAI-compatible model endpoint.",
        ["deterministic", "model"],
      ),
      model: nullableStr("Model that drafted the plan when `method` is `model`; null otherwise."),
      phases: list(
        "Phases in execution order (every phase comes after its dependencies).",
        fields(
          {
            id: str(
              "Phase id, unique within the plan (e.g. `p2-booking-widget`): the phaseId of plan.execute and plan.verify.",
            ),
            title: str("Short title."),
            description: str("What the phase delivers."),
            dependsOn: list("Phases that must be verified before this one can start.", str("A phase id.")),
            status: enumOf(
              "blocked: a dependency is not verified; ready; in_progress: started by plan.execute; verified; failed: plan.verify found a failing check (verify again with more evidence).",
              PHASE_STATUSES,
            ),
            checks: list(
              "What must hold for the phase to be verified.",
              fields(checkProps(), [], { description: "A check." }),
            ),
            actions: list(
              "Abilities the phase is expected to call. plan.execute issues one permit per action whose input is known.",
              fields(
                {
                  ability: str("Ability id."),
                  input: nullable(
                    typed<Record<string, unknown>>({ type: "object", description: "Input." }),
                    "The exact input when known (a permit is issued for it); null when only the ability is known.",
                  ),
                },
                [],
                { description: "An expected action." },
              ),
            ),
            runId: nullableRunId("Run plan.execute issued with permits for the phase's actions (`run_…`), or null."),
            started: nullableTimestamp("When plan.execute started the phase (RFC 3339); null before."),
            verified: nullableTimestamp("When plan.verify last passed the phase (RFC 3339); null before."),
          },
          [],
          { description: "A phase." },
        ),
      ),
      sources: fields(
        {
          templates: list("Checklist templates used (ids).", str("A template id.")),
          lessons: list("Lessons used (`les_…`).", str("A lesson id.")),
          decisions: list("Decisions respected (`D-NNN`).", str("A decision id.")),
        },
        [],
        { description: "What the plan drew on." },
      ),
      outcome: nullable(enumOf("Outcome.", PLAN_OUTCOMES), "Outcome recorded by plan.learn; null before."),
      created: timestamp("When the plan was created (RFC 3339)."),
      updated: timestamp("Last change of the plan or a phase (RFC 3339)."),
      closed: nullableTimestamp("When plan.learn closed it (RFC 3339); null before."),
    },
    [],
    { description },
  );
}

export const abilities = [
  {
    id: "plan.create",
    summary: "Create an execution plan from a goal: phases with dependencies, checking templates and lessons.",
    inputSource: "spec",
    input: object(
      {
        goal: text("What the plan must achieve.", 5000),
        constraints: array("Constraints the plan must respect.", text("One constraint.", 1000), 50),
        vertical: slug("Vertical the plan belongs to; defaults to the call's context.verticalId."),
        type: slug(
          "Kind of plan (free-form slug, e.g. launch, migration, incident); selects templates when one matches.",
        ),
      },
      ["goal"],
    ),
    output: plan("The new plan: phases with dependencies and checks; phases without dependencies are `ready`."),
    example: {
      goal: "Launch online booking for the clinic",
      constraints: ["No downtime for the current site", "Live before 1 June"],
      vertical: "clinic",
      type: "launch",
    },
  },
  {
    id: "plan.execute",
    summary: "Start the next ready phase of a plan (or a named phase whose dependencies are met).",
    inputSource: "ours",
    input: object(
      {
        planId: planId(),
        phaseId: phaseId("Phase to start; omit to start every phase whose dependencies are met."),
        idempotencyKey: idempotencyKey("the phase start"),
      },
      ["planId"],
    ),
    output: fields(
      {
        started: list(
          "Phases this call started, in plan order (a replay with the same idempotencyKey starts nothing and returns the phases the first call started, with the plan as it is now).",
          str("A phase id."),
        ),
        plan: plan("The plan after the start; started phases are `in_progress` and carry their `runId`."),
      },
      [],
      { description: "What was started." },
    ),
    example: { planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N", phaseId: "p2-booking-widget" },
  },
  {
    id: "plan.learn",
    summary: "Record how a plan turned out so its lessons feed future plans (through the lessons inbox).",
    inputSource: "ours",
    input: object(
      {
        planId: planId(),
        outcome: oneOfValues("How the plan ended.", PLAN_OUTCOMES),
        notes: text("What went well or badly, and why.", 20_000),
        lessons: array(
          "Lessons to append to the lessons inbox, linked to the plan.",
          object(
            {
              title: line("Short title.", 200),
              lesson: text("What was learnt.", 20_000),
              severity: oneOfValues("How much it matters.", LESSON_SEVERITIES),
            },
            ["title", "lesson"],
            { description: "One lesson." },
          ),
          20,
        ),
      },
      ["planId", "outcome"],
    ),
    output: fields(
      {
        planId: prefixedId("plan", "Plan id (`plan_…`)."),
        outcome: enumOf("Outcome recorded.", PLAN_OUTCOMES),
        notes: nullableStr("Notes, as given; null if none."),
        lessons: list(
          "Lessons appended to the lessons inbox (memory service), in input order.",
          fields(
            {
              id: prefixedId("les", "Lesson id (`les_…`)."),
              title: str("Title."),
              severity: nullable(enumOf("Severity.", LESSON_SEVERITIES), "Severity, or null when none was given."),
            },
            [],
            { description: "A recorded lesson." },
          ),
        ),
        status: enumOf("Plan status after recording: always `closed`.", ["closed"]),
        recorded: timestamp("When the outcome was recorded (RFC 3339)."),
      },
      [],
      { description: "The recorded outcome; the plan is closed." },
    ),
    example: {
      planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N",
      outcome: "partial",
      notes: "Booking went live on time; the payment step slipped a week.",
      lessons: [
        {
          title: "Connect payments before launch week",
          lesson: "Provider review takes 5 business days.",
          severity: "medium",
        },
      ],
    },
  },
  {
    id: "plan.verify",
    summary: "Check a plan (or one phase) against its checks and the receipts given as evidence.",
    inputSource: "ours",
    input: object(
      {
        planId: planId(),
        phaseId: phaseId("Phase to verify; omit to verify the whole plan."),
        receiptIds: receiptIds("Receipts (request ids) offered as evidence that the work was done."),
      },
      ["planId"],
    ),
    output: fields(
      {
        planId: prefixedId("plan", "Plan id (`plan_…`)."),
        phaseId: nullableStr("Phase verified, or null when the whole plan was."),
        passed: bool("Whether every check in scope passed."),
        checks: list(
          "Every check in scope, in plan order, with its status after this verification.",
          fields(
            {
              phaseId: str("Phase of the check."),
              ...checkProps(),
              reason: nullableStr(
                "Why it failed or is still pending (e.g. no receipt of the expected ability); null when passed.",
              ),
            },
            [],
            { description: "A check result." },
          ),
        ),
        receipts: list(
          "Every receipt given as evidence, in input order, accepted or not.",
          fields(
            {
              requestId: str("Request id, as given."),
              accepted: bool("Whether it counted as evidence."),
              reason: nullableStr(
                "Why it was not accepted (unknown, another tenant's, not made under a run, or its ability and input hash match no action of the phase); null when accepted.",
              ),
            },
            [],
            { description: "One receipt." },
          ),
        ),
        plan: plan("The plan after verification (phase and plan statuses updated)."),
        verified: timestamp("When the verification ran (RFC 3339)."),
      },
      [],
      { description: "The verification: each check with its evidence." },
    ),
    example: {
      planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N",
      phaseId: "p2-booking-widget",
      receiptIds: ["req_01J9ZC5D6E7F8G9H0J1K2M3N4P"],
    },
  },
] as const satisfies readonly AbilityEntry[];
