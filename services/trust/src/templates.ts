/**
 * @module trust/templates
 * The checklist templates plans and QA checklists are built from, shipped with the service. A plan
 * template is chosen by the plan's `type` (`generic` when none matches): its phases, their
 * dependencies, checks and the abilities each phase is expected to call. QA templates are chosen by
 * vertical (`generic` always applies); an item with `when` words applies only when the checklist's
 * scope mentions one of them.
 *
 * Actions name abilities of other services only: the trust service's own abilities are not
 * permit-gated and leave no receipt, so they could never serve as evidence.
 */
import type { LESSON_SEVERITIES } from "@gantry/proto/catalogue/memory.ts";

export type Severity = (typeof LESSON_SEVERITIES)[number];

export interface PhaseTemplate {
  id: string;
  title: string;
  description: string;
  dependsOn: string[];
  checks: string[];
  /** Abilities the phase is expected to call. */
  actions: string[];
}

export interface PlanTemplate {
  id: string;
  phases: PhaseTemplate[];
}

export const PLAN_TEMPLATES: Record<string, PlanTemplate> = {
  generic: {
    id: "plan.generic.v1",
    phases: [
      {
        id: "p1-scope",
        title: "Scope",
        description: "Write down what done means, who is affected and what must not break.",
        dependsOn: [],
        checks: ["Success criteria are written down and agreed", "Owners of each later phase are named"],
        actions: ["task.create"],
      },
      {
        id: "p2-build",
        title: "Build",
        description: "Do the work the goal needs.",
        dependsOn: ["p1-scope"],
        checks: ["The change is complete against the success criteria"],
        actions: [],
      },
      {
        id: "p3-verify",
        title: "Verify",
        description: "Check the result against the success criteria and the constraints.",
        dependsOn: ["p2-build"],
        checks: ["Every success criterion was checked, with evidence"],
        actions: [],
      },
      {
        id: "p4-close",
        title: "Close",
        description: "Tell the people affected and record what was learnt.",
        dependsOn: ["p3-verify"],
        checks: ["The people affected were told"],
        actions: [],
      },
    ],
  },
  launch: {
    id: "plan.launch.v1",
    phases: [
      {
        id: "p1-prepare",
        title: "Prepare",
        description: "Agree the launch scope, date and owners; list what the launch depends on.",
        dependsOn: [],
        checks: ["Launch scope, date and owners are written down", "External dependencies are listed with owners"],
        actions: ["task.create"],
      },
      {
        id: "p2-build",
        title: "Build",
        description: "Build what is launched, behind a switch that can turn it off.",
        dependsOn: ["p1-prepare"],
        checks: ["The feature can be turned off without a deploy"],
        actions: [],
      },
      {
        id: "p3-qa",
        title: "QA",
        description: "Test the launch end to end as a customer would, including failure paths.",
        dependsOn: ["p2-build"],
        checks: ["The main customer path works end to end", "A failure path shows a useful message"],
        actions: [],
      },
      {
        id: "p4-launch",
        title: "Launch",
        description: "Turn it on and announce it.",
        dependsOn: ["p3-qa"],
        checks: ["Customers were told", "Monitoring shows the launch healthy for a day"],
        actions: ["message.send"],
      },
      {
        id: "p5-review",
        title: "Review",
        description: "Compare the result with the goal and record the lessons.",
        dependsOn: ["p4-launch"],
        checks: ["The outcome is compared with the goal"],
        actions: [],
      },
    ],
  },
  migration: {
    id: "plan.migration.v1",
    phases: [
      {
        id: "p1-inventory",
        title: "Inventory",
        description: "List what moves, who uses it and how to move it back.",
        dependsOn: [],
        checks: ["Everything that moves is listed", "A rollback path is written down"],
        actions: ["task.create"],
      },
      {
        id: "p2-rehearse",
        title: "Rehearse",
        description: "Run the migration on a copy and time it.",
        dependsOn: ["p1-inventory"],
        checks: ["The rehearsal completed and its duration is known"],
        actions: [],
      },
      {
        id: "p3-migrate",
        title: "Migrate",
        description: "Run the migration for real, watching for errors.",
        dependsOn: ["p2-rehearse"],
        checks: ["Record counts match before and after"],
        actions: [],
      },
      {
        id: "p4-announce",
        title: "Announce",
        description: "Tell users the migration is done and what changed.",
        dependsOn: ["p3-migrate"],
        checks: ["Users were told what changed"],
        actions: ["message.send"],
      },
    ],
  },
  incident: {
    id: "plan.incident.v1",
    phases: [
      {
        id: "p1-contain",
        title: "Contain",
        description: "Stop the harm from spreading.",
        dependsOn: [],
        checks: ["The harm no longer spreads"],
        actions: ["task.create"],
      },
      {
        id: "p2-fix",
        title: "Fix",
        description: "Remove the cause.",
        dependsOn: ["p1-contain"],
        checks: ["The cause is removed and the fix is verified"],
        actions: [],
      },
      {
        id: "p3-communicate",
        title: "Communicate",
        description: "Tell the people affected what happened and what was done.",
        dependsOn: ["p1-contain"],
        checks: ["Affected people were told"],
        actions: ["message.send"],
      },
      {
        id: "p4-review",
        title: "Review",
        description: "Write down the cause and the lessons.",
        dependsOn: ["p2-fix", "p3-communicate"],
        checks: ["The cause and the lessons are written down"],
        actions: [],
      },
    ],
  },
};

export function planTemplate(type: string | undefined): PlanTemplate {
  return (type && PLAN_TEMPLATES[type]) || PLAN_TEMPLATES.generic!;
}

export interface QaItemTemplate {
  check: string;
  severity: Severity;
  /** Words of the scope that make the item apply; always applies when absent. */
  when?: string[];
}

export const QA_TEMPLATES: Record<string, { id: string; items: QaItemTemplate[] }> = {
  generic: {
    id: "qa.generic.v1",
    items: [
      { check: "The main path works end to end as a customer would use it", severity: "high" },
      { check: "A failure shows the user a message saying what to do", severity: "medium" },
      { check: "The change can be rolled back without losing data", severity: "high" },
      {
        check: "Exactly one email is sent per triggering action, to the right recipient",
        severity: "high",
        when: ["email", "mail", "confirmation", "notification"],
      },
      {
        check: "A payment is charged exactly once, even when the customer retries",
        severity: "critical",
        when: ["payment", "deposit", "checkout", "charge", "payout", "refund"],
      },
      {
        check: "Forms are usable with a keyboard and a screen reader",
        severity: "medium",
        when: ["form", "widget", "page", "site", "booking"],
      },
      {
        check: "Times are shown in the customer's time zone",
        severity: "medium",
        when: ["booking", "appointment", "schedule", "calendar"],
      },
    ],
  },
  clinic: {
    id: "qa.clinic.v1",
    items: [
      { check: "No patient data appears in URLs, logs or emails beyond what is needed", severity: "critical" },
      { check: "A double booking of the same slot is refused", severity: "high", when: ["booking", "appointment"] },
    ],
  },
  shop: {
    id: "qa.shop.v1",
    items: [
      { check: "Stock cannot go below zero when two customers buy the last item", severity: "high" },
      { check: "Prices shown equal prices charged, taxes included", severity: "critical" },
    ],
  },
};

export const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };
