/**
 * @module gateway/pipeline/deadline-header
 * How long a call may take. Every ability has a deadline: its catalogue entry's `deadlineMs` when
 * its work can outlast the gateway's `UPSTREAM_TIMEOUT_MS`, else that setting. A caller that will
 * not wait so long says so with the `Gantry-Timeout-Ms` request header (gRPC's `grpc-timeout` for
 * HTTP callers): the call then stops its work on every hop when that much time has passed since it
 * arrived, instead of running on for nobody. Shorter only: the ability's deadline is its bound.
 */
import type { AbilityDef } from "@gantry/proto/catalogue";
import { GantryError } from "@gantry/kit";

export const DEADLINE_HEADER = "gantry-timeout-ms";

/** The header's description, for OpenAPI. */
export const DEADLINE_HEADER_DOC =
  "Milliseconds you will wait for the answer, counted from the call's arrival (at most the ability's own deadline: the gateway's `UPSTREAM_TIMEOUT_MS`, 30 s by default, or longer for browser, research and PDF abilities). When they pass, the call stops on every hop and answers 504 `timeout`. Without it, the ability's deadline applies.";

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
