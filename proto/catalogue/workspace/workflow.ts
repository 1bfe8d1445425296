/**
 * @module catalogue/workspace/workflow
 * The workspace service's abilities of the `workflow` area (Workflows: workflow triggers).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { freeObject, idempotencyKey, object, text } from "../schema.ts";
import { enumOf, fields, str } from "../output.ts";
import { recordVertical, created } from "./shared.ts";

/** Workflow names are one NATS subject token: no dots. */
const WORKFLOW_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

// ── result shapes ─────────────────────────────────────────────────────────────────────────────
// Written once and reused by get/list/create/update (services/workspace/src/records.ts maps rows to
// these). Every record carries `tenant`, `vertical` (or null) and `created`/`updated` (RFC 3339, UTC).

/** Workflow run statuses (services/workspace/src/workflows/deliverer.ts). */
export const RUN_STATUSES = ["queued", "delivering", "delivered", "failed"] as const;

/** How a workflow run is delivered: to the tenant's endpoint, or only published on its subject. */
export const RUN_DELIVERIES = ["webhook", "subject"] as const;

export const abilities = [
  {
    id: "workflow.trigger",
    summary: "Trigger a named workflow run: queued, published durably and delivered to the tenant's workflow endpoint.",
    inputSource: "ours",
    input: object(
      {
        workflow: text("Workflow name (letters, digits, _ and -; no dots).", 64, { pattern: WORKFLOW_NAME_PATTERN }),
        input: freeObject("Input handed to the workflow."),
        idempotencyKey: idempotencyKey("the run"),
      },
      ["workflow"],
    ),
    output: fields(
      {
        runId: str("Workflow run id (`wfr_…`)."),
        status: enumOf(
          "Run status: `queued` when triggered; a replay returns the run as it is now (delivering, delivered, failed).",
          RUN_STATUSES,
        ),
        workflow: str("Workflow name."),
        subject: str("NATS subject the trigger was published on (`workflows.<tenant token>.<workflow>.triggered`)."),
        delivery: enumOf(
          "`webhook`: delivered to the tenant's workflow endpoint; `subject`: only published on the subject.",
          RUN_DELIVERIES,
        ),
        vertical: recordVertical("run"),
        created: created("run"),
      },
      [],
      { description: "The workflow run." },
    ),
    example: {
      workflow: "send-booking-reminders",
      input: { day: "2026-06-03" },
      idempotencyKey: "reminders-2026-06-03",
    },
  },
] as const satisfies readonly AbilityEntry[];
