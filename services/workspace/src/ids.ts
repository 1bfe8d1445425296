/**
 * @module workspace/ids
 * The workspace's id prefixes (kit/src/data/ids.ts makes the ids). Prefixes are unique across
 * Gantry: `con_` is a connection and `run_` a trust run (context.runId), so contacts are `ctc_` and
 * workflow runs `wfr_`.
 *
 * @example
 * newId("contact"); // "ctc_01JA2B3C4D5E6F7G8H9J0KMNPQ"
 */
import { idMaker } from "@gantry/kit";

export const ID_PREFIXES = {
  contact: "ctc",
  lead: "lead",
  task: "task",
  doc: "doc",
  comment: "cmt",
  event: "evt",
  workflowRun: "wfr",
  simulation: "sim",
} as const;

export type RecordKind = keyof typeof ID_PREFIXES;

export const newId = idMaker(ID_PREFIXES);
