/**
 * @module trust/runs
 * A run as trust.preflight and trust.status answer it: status derived from the clock and its
 * permits (expired after `expires`; exhausted once every permit is used), each permit with the
 * receipt of the call that used it, and the run's claims with their receipts.
 */
import type { SignedTree } from "./checkpoints.ts";
import type { Context } from "./context.ts";
import type { Run } from "./db.ts";
import { claimView } from "./claims.ts";
import { receiptViews } from "./receipts.ts";

export async function runView(ctx: Context, run: Run, signed?: SignedTree) {
  const [permits, claims] = await Promise.all([
    ctx.db.permit.findMany({ where: { runId: run.id, tenant: run.tenant }, orderBy: { position: "asc" } }),
    ctx.db.claim.findMany({
      where: { runId: run.id, tenant: run.tenant },
      orderBy: [{ createdAt: "asc" }, { position: "asc" }],
    }),
  ]);
  const views = await receiptViews(
    ctx,
    run.tenant,
    [...permits.flatMap((p) => (p.requestId ? [p.requestId] : [])), ...claims.flatMap((c) => c.receiptIds)],
    signed,
  );
  const expired = run.expiresAt.getTime() <= ctx.now();
  const exhausted = permits.length > 0 && permits.every((p) => p.status === "used");
  return {
    id: run.id,
    tenant: run.tenant,
    task: run.task,
    status: expired ? ("expired" as const) : exhausted ? ("exhausted" as const) : ("active" as const),
    keyId: run.keyId,
    created: run.createdAt.toISOString(),
    expires: run.expiresAt.toISOString(),
    permits: permits.map((p) => ({
      id: p.id,
      ability: p.ability,
      inputHash: p.inputHash,
      status: p.status === "used" ? ("used" as const) : expired ? ("expired" as const) : ("issued" as const),
      used: p.usedAt?.toISOString() ?? null,
      receipt: (p.requestId && views.get(p.requestId)) || null,
    })),
    claims: claims.map((c) => claimView(c, views)),
  };
}
