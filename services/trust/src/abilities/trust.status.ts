/**
 * @module trust/abilities/trust.status
 * The run with its permits (used or not, when, with the signed receipt and inclusion proof of the
 * call that used it) and its claims with their receipts, plus the tenant's receipt log: its signed
 * checkpoint (stored, and checked against the last one signed before a new one is signed:
 * src/checkpoints.ts) and, with `logFromSize`, the consistency proof from that earlier size, so a
 * client holding an older checkpoint checks offline that the log only grew. Another tenant's run is
 * 404, like an unknown one.
 */
import { consistencyFrom, currentCheckpoint, logOrigin } from "../checkpoints.ts";
import { ability } from "../context.ts";
import { runOf } from "../permits.ts";
import { runView } from "../runs.ts";

export default ability("trust.status", async (input, call, ctx) => {
  const run = await runOf(ctx, call.tenant, input.runId, "/input/runId");
  const signed = await currentCheckpoint(ctx, run.tenant);
  const consistency =
    input.logFromSize === undefined
      ? null
      : { fromSize: input.logFromSize, hashes: await consistencyFrom(signed, input.logFromSize, "/input/logFromSize") };
  return {
    ...(await runView(ctx, run, signed)),
    log: {
      origin: logOrigin(run.tenant),
      logId: signed.logId,
      treeSize: signed.tree.size,
      rootHash: signed.tree.root().toString("hex"),
      checkpoint: signed.note,
      consistency,
    },
  };
});
