/**
 * @module catalogue/trust
 * Trust runs, permits and labelled claims, plans and QA checklists, owned by the trust service
 * (spec §2.5 Claim, §4.3 trust.preflight, trust.publish, plan.create).
 */
import type { AbilityEntry } from "./types.ts";
import { LESSON_SEVERITIES } from "./memory.ts";
import {
  ABILITY_ID_PATTERN,
  array,
  freeObject,
  id,
  idempotencyKey,
  line,
  object,
  oneOfValues,
  slug,
  text,
} from "./schema.ts";

/** Claim statuses (spec §2.5, §4.3 trust.publish). */
export const CLAIM_STATUSES = ["observed", "inference", "unverified"] as const;

/** Outcomes plan.learn records (ours). */
export const PLAN_OUTCOMES = ["succeeded", "partial", "failed", "abandoned"] as const;

function receiptIds(description: string) {
  return array(description, id("A receipt: the X-Request-Id of an earlier Gantry call."), 50, 0, true);
}

function planId(description = "Plan id returned by plan.create.") {
  return id(description);
}

function phaseId(description: string) {
  return text(description, 64, { pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$" });
}

export const abilities = [
  {
    id: "trust.preflight",
    summary:
      "Create a time-bounded run with single-use permits for exact actions, and attach fresh receipts to claims.",
    inputSource: "spec",
    input: object(
      {
        task: text("What the run is for, in a sentence or two.", 2000),
        actions: array(
          "Exact actions to permit; each permit is single-use and matches only this ability with this input.",
          object(
            {
              ability: text("Ability id the permit is for (e.g. payout.send).", 128, { pattern: ABILITY_ID_PATTERN }),
              input: freeObject("The exact input the call will send."),
            },
            ["ability", "input"],
            { description: "One permitted action." },
          ),
          50,
        ),
        claims: array(
          "Consequential claims to back with receipts now.",
          object(
            {
              text: text("The claim.", 2000),
              receiptIds: receiptIds("Receipts (request ids) that support the claim."),
            },
            ["text", "receiptIds"],
            { description: "One claim." },
          ),
          50,
        ),
      },
      ["task"],
    ),
    example: {
      task: "Refund order 1042 to the customer's verified account",
      actions: [
        {
          ability: "payout.send",
          input: { recipientId: "rcp_01J9Z6A", amount: 15000, currency: "NGN", idempotencyKey: "refund-order-1042" },
        },
      ],
      claims: [{ text: "Order 1042 was paid on 2 May", receiptIds: ["req_01J9Z8Q2W3E4R5T6Y7U8I9O0P1"] }],
    },
  },
  {
    id: "trust.publish",
    summary: "Publish a structured answer whose claims are labelled observed, inference or unverified.",
    inputSource: "spec",
    input: object(
      {
        claims: array(
          "The claims of the answer.",
          object(
            {
              text: text("The claim.", 2000),
              status: oneOfValues(
                "observed: seen in a receipt; inference: reasoned from observations; unverified: neither.",
                CLAIM_STATUSES,
              ),
              receiptIds: receiptIds("Receipts (request ids) the claim rests on."),
            },
            ["text", "status"],
            { description: "One labelled claim." },
          ),
          100,
          1,
        ),
      },
      ["claims"],
    ),
    example: {
      claims: [
        {
          text: "Payout for order 1042 was accepted by the provider",
          status: "observed",
          receiptIds: ["req_01J9Z9A1S2D3F4G5H6J7K8L9Z0"],
        },
        { text: "The customer will see the funds within one business day", status: "inference" },
      ],
    },
  },
  {
    id: "trust.status",
    summary: "Get a trust run: its expiry, its permits (used or not) and its claims with their receipts.",
    inputSource: "ours",
    input: object({ runId: id("Run id returned by trust.preflight.") }, ["runId"]),
    example: { runId: "run_01J9ZA3B4C5D6E7F8G9H0J1K2M" },
  },
  {
    id: "plan.create",
    summary: "Create an execution plan from a goal: phases with dependencies, checking templates and lessons.",
    inputSource: "spec",
    input: object(
      {
        goal: text("What the plan must achieve.", 5000),
        constraints: array("Constraints the plan must respect.", text("One constraint.", 1000), 50),
        vertical: slug("Vertical the plan belongs to."),
        type: slug(
          "Kind of plan (free-form slug, e.g. launch, migration, incident); selects templates when one matches.",
        ),
      },
      ["goal"],
    ),
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
    example: {
      planId: "plan_01J9ZB4C5D6E7F8G9H0J1K2M3N",
      phaseId: "p2-booking-widget",
      receiptIds: ["req_01J9ZC5D6E7F8G9H0J1K2M3N4P"],
    },
  },
  {
    id: "qa.checklist.create",
    summary: "Create a QA checklist for a change, from your items or derived from templates and lessons.",
    inputSource: "ours",
    input: object(
      {
        title: line("What is being checked.", 200),
        scope: text("Description of the change under test; used to derive items when none are given.", 5000),
        items: array(
          "Checklist items; omit to derive them from scope, templates and lessons.",
          object(
            {
              check: line("The check, phrased so it passes or fails.", 500),
              severity: oneOfValues("How much a failure matters.", LESSON_SEVERITIES),
            },
            ["check"],
            { description: "One item." },
          ),
          200,
          1,
        ),
        planId: planId("Plan this checklist belongs to."),
        vertical: slug("Vertical whose templates apply."),
        idempotencyKey: idempotencyKey("the checklist"),
      },
      ["title"],
      {
        anyOf: [
          { properties: { scope: true }, required: ["scope"] },
          { properties: { items: true }, required: ["items"] },
        ],
      },
    ),
    example: {
      title: "Online booking release",
      scope: "New booking widget on the public site, with deposit payment and confirmation email.",
      items: [{ check: "A booking with deposit sends exactly one confirmation email", severity: "high" }],
      vertical: "clinic",
    },
  },
] as const satisfies readonly AbilityEntry[];
