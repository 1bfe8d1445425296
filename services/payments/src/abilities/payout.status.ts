/**
 * @module payments/abilities/payout.status
 * One payout (`po_…`) or batch (`pob_…`), refreshed from the provider first: payouts not yet sent
 * are looked up and, if the provider does not know them, sent again under the same reference; those
 * in flight are asked for their status, and so is a single paid payout (a bank may still reverse
 * it). Forward only: a webhook that already moved it wins.
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { refreshPayout } from "../payouts.ts";
import { batchOut, payoutOut } from "../records.ts";

const OPEN = new Set(["pending", "processing", "paid"]);

export default ability("payout.status", async (input, call, ctx) => {
  if (input.id.startsWith("pob_")) {
    const batch = await ctx.db.payoutBatch.findFirst({ where: { id: input.id, tenant: call.tenant } });
    if (!batch) throw notFound("payout batch", input.id);
    // Items in flight only: asking about every paid item of a 500-item batch on each call would be
    // 500 provider requests; reversals of paid items arrive by webhook or payout.status on the item.
    const open = await ctx.db.payout.findMany({
      where: { batchId: batch.id, status: { in: ["pending", "processing"] } },
      orderBy: { position: "asc" },
    });
    for (const p of open) await refreshPayout(ctx, call, p);
    const fresh = await ctx.db.payoutBatch.findFirstOrThrow({
      where: { id: batch.id },
      include: { items: { orderBy: { position: "asc" } } },
    });
    return batchOut(fresh, fresh.items);
  }
  const payout = await ctx.db.payout.findFirst({ where: { id: input.id, tenant: call.tenant } });
  if (!payout) throw notFound("payout", input.id);
  return payoutOut(OPEN.has(payout.status) ? await refreshPayout(ctx, call, payout) : payout);
});
