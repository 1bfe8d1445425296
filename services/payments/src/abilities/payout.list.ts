/**
 * @module payments/abilities/payout.list
 * The tenant's payouts (single and batch items), newest first (kit keyset pagination), filtered by
 * status, batch, recipient, vertical and creation time.
 */
import { afterCursor, NEWEST_FIRST, toPage } from "@gantry/kit";
import { ability } from "../context.ts";
import { payoutOut } from "../records.ts";

export default ability("payout.list", async (input, call, ctx) => {
  const created = {
    ...(input.createdAfter ? { gte: new Date(input.createdAfter) } : {}),
    ...(input.createdBefore ? { lt: new Date(input.createdBefore) } : {}),
  };
  const rows = await ctx.db.payout.findMany({
    where: {
      tenant: call.tenant,
      ...(input.status ? { status: input.status } : {}),
      ...(input.batchId ? { batchId: input.batchId } : {}),
      ...(input.recipientId ? { recipientId: input.recipientId } : {}),
      ...(input.vertical ? { vertical: input.vertical } : {}),
      AND: [afterCursor(input.cursor), Object.keys(created).length ? { createdAt: created } : {}],
    },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, payoutOut);
});
