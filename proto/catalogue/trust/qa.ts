/**
 * @module catalogue/trust/qa
 * The trust service's abilities of the `qa` area (Quality checks: quality checks).
 * `proto/catalogue/trust.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { LESSON_SEVERITIES } from "../memory.ts";
import { enumOf, fields, list, nullableStr, str, timestamp } from "../output.ts";
import { array, idempotencyKey, line, nullable, object, oneOfValues, slug, text } from "../schema.ts";
import { planId, prefixedId } from "./shared.ts";

export const abilities = [
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
    output: fields(
      {
        id: prefixedId("qac", "Checklist id (`qac_…`)."),
        tenant: str("Tenant of the checklist."),
        title: str("What is being checked."),
        scope: nullableStr("Description of the change, as given; null if none."),
        planId: nullable(prefixedId("plan", "Plan id."), "Plan the checklist belongs to (`plan_…`), or null."),
        vertical: nullableStr("Vertical whose templates applied, or null."),
        items: list(
          "Items: the given ones first, in input order, then derived ones by severity.",
          fields(
            {
              id: str("Item id, unique within the checklist (e.g. `i1`)."),
              check: str("The check, phrased so it passes or fails."),
              severity: enumOf("How much a failure matters; `medium` when a given item named none.", LESSON_SEVERITIES),
              source: enumOf("`given` (your items), or derived from a `template` or a `lesson`.", [
                "given",
                "template",
                "lesson",
              ]),
              sourceRef: nullableStr("Template id or lesson id (`les_…`) it was derived from; null for given items."),
            },
            [],
            { description: "An item." },
          ),
        ),
        created: timestamp("When the checklist was created (RFC 3339)."),
      },
      [],
      { description: "The checklist." },
    ),
    example: {
      title: "Online booking release",
      scope: "New booking widget on the public site, with deposit payment and confirmation email.",
      items: [{ check: "A booking with deposit sends exactly one confirmation email", severity: "high" }],
      vertical: "clinic",
    },
  },
] as const satisfies readonly AbilityEntry[];
