/**
 * @module trust/abilities/trust.status
 * The run with its permits (used or not, when, with the signed receipt and inclusion proof of the
 * call that used it) and its claims with their receipts. Another tenant's run is 404, like an
 * unknown one.
 */
import { ability } from "../context.ts";
import { runOf } from "../permits.ts";
import { runView } from "../runs.ts";

export default ability("trust.status", async (input, call, ctx) =>
  runView(ctx, await runOf(ctx, call.tenant, input.runId, "/input/runId")),
);
