/**
 * @module gateway/pipeline/deadline-header
 * How long a call may take. Every ability has a deadline: its catalogue entry's `deadlineMs` when
 * its work can outlast the gateway's `UPSTREAM_TIMEOUT_MS`, else that setting. A caller that will
 * not wait so long says so with the `Gantry-Timeout-Ms` request header (gRPC's `grpc-timeout` for
 * HTTP callers): the call then stops its work on every hop when that much time has passed since it
 * arrived, instead of running on for nobody. Shorter only: the ability's deadline is its bound.
 *
 * Not in OpenAPI yet: the API fuzz run (infra/scripts/fuzz.ts) would send it with values such as
 * 1 ms and count the 504 that rightly follows as a server error; it goes there together with a
 * fuzz setting that expects 504 for deadlines the fuzzer chose.
 */
import type { AbilityDef } from "@gantry/proto/catalogue";
import { GantryError } from "@gantry/kit";

export const DEADLINE_HEADER = "gantry-timeout-ms";

/** The call's deadline in ms from its arrival: the header's, when sent and within the ability's own. */
export function callDeadlineMs(ability: AbilityDef, header: string | undefined, upstreamTimeoutMs: number): number {
  const bound = ability.deadlineMs ?? upstreamTimeoutMs;
  if (header === undefined) return bound;
  const detail = (message: string, code: "pattern" | "maximum") => ({
    details: [{ path: `/headers/${DEADLINE_HEADER}`, message, code }],
  });
  if (!/^[1-9][0-9]{0,8}$/.test(header))
    throw new GantryError("invalid_request", "The Gantry-Timeout-Ms header is not a whole number of milliseconds.", {
      reason: "Send a positive integer, e.g. Gantry-Timeout-Ms: 5000, or leave the header out.",
      ...detail("Gantry-Timeout-Ms must be a positive integer of milliseconds", "pattern"),
    });
  const ms = Number(header);
  if (ms > bound)
    throw new GantryError("invalid_request", `${ability.id} takes a deadline of at most ${bound} ms.`, {
      reason: `Gantry-Timeout-Ms may shorten ${ability.id}'s deadline (${bound} ms), not lengthen it.`,
      ...detail(`Gantry-Timeout-Ms must be at most ${bound}`, "maximum"),
    });
  return ms;
}
