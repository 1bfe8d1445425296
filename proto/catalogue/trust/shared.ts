/**
 * @module catalogue/trust/shared
 * The value lists and schema builders that more than one of the trust service's areas use; each
 * area's own builders sit in its file beside its entries.
 */
import { str } from "../output.ts";
import { array, id, nullable } from "../schema.ts";

export function receiptIds(description: string) {
  return array(description, id("A receipt: the X-Request-Id of an earlier Gantry call."), 50, 0, true);
}

export function planId(description = "Plan id returned by plan.create.") {
  return id(description);
}

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
export function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

export function nullableRunId(description: string) {
  return nullable(prefixedId("run", "Run id."), description);
}
