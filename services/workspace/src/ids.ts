/**
 * @module workspace/ids
 * Prefixed record ids: `<prefix>_` + a 26-character ULID (48-bit millisecond time + 80 random bits,
 * Crockford base32), so ids sort roughly by creation and never collide across replicas.
 *
 * Prefixes are unique across Gantry: `con_` is a connection and `run_` a trust run (context.runId),
 * so contacts are `ctc_` and workflow runs `wfr_`.
 *
 * @example
 * newId("contact"); // "ctc_01JA2B3C4D5E6F7G8H9J0KMNPQ"
 */
import { randomBytes } from "node:crypto";

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

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function ulid(now = Date.now()): string {
  let time = "";
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let rand = "";
  for (const b of randomBytes(16)) rand += CROCKFORD[b % 32];
  return time + rand;
}

export function newId(kind: RecordKind, now?: number): string {
  return `${ID_PREFIXES[kind]}_${ulid(now)}`;
}
