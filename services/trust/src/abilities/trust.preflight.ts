/**
 * @module trust/abilities/trust.preflight
 * Creates a run owned by the calling key, expiring after TRUST_RUN_TTL_SECONDS, with one single-use
 * permit per action (each action's input is checked against its ability's schema first, so a permit
 * that could never be used is refused with 400 naming the action), and attaches the given claims as
 * `observed`: each must cite receipts of this tenant made under a run, else 400 naming the claim.
 */
import { checkClaims } from "../claims.ts";
import { ability } from "../context.ts";
import { insertRun } from "../permits.ts";
import { runView } from "../runs.ts";

export default ability("trust.preflight", async (input, call, ctx) => {
  const claims = (input.claims ?? []).map((c) => ({ ...c, status: "observed" as const }));
  await checkClaims(ctx, call.tenant, claims, "/input/claims");
  const run = await insertRun(
    ctx,
    call.tenant,
    { task: input.task, keyId: call.keyId, requestId: call.requestId, actions: input.actions ?? [] },
    claims,
  );
  return runView(ctx, run);
});
