/**
 * @module trust/abilities/trust.publish
 * Publishes an answer as labelled claims. Labels are the caller's (spec §3: no transitions), but an
 * `observed` claim must rest on receipts: at least one, each a receipt of this tenant made under a
 * run, else 400 naming the claim. When the call carries `context.runId` the answer is attached to
 * that run (404 when it is not one of the tenant's).
 */
import { checkClaims, claimRows, claimView } from "../claims.ts";
import { ability } from "../context.ts";
import { newId } from "../ids.ts";
import { runOf } from "../permits.ts";

export default ability("trust.publish", async (input, call, ctx) => {
  const claims = input.claims.map((c) => ({ ...c, receiptIds: c.receiptIds ?? [] }));
  const views = await checkClaims(ctx, call.tenant, claims, "/input/claims");
  const runId = call.runId ? (await runOf(ctx, call.tenant, call.runId, "/context/runId")).id : null;
  const now = ctx.now();
  const id = newId("publication", now);
  const rows = claimRows(call.tenant, claims, { publicationId: id }, now);
  await ctx.db.$transaction([
    ctx.db.publication.create({
      data: { id, tenant: call.tenant, runId, requestId: call.requestId, createdAt: new Date(now) },
    }),
    ctx.db.claim.createMany({ data: rows }),
  ]);
  const counts = { observed: 0, inference: 0, unverified: 0 };
  for (const c of claims) counts[c.status]++;
  return {
    id,
    tenant: call.tenant,
    runId,
    claims: rows.map((r) => claimView(r, views)),
    counts,
    requestId: call.requestId,
    created: new Date(now).toISOString(),
  };
});
