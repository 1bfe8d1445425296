/**
 * @module payments/abilities/payment.list
 * The tenant's payments, newest first (kit keyset pagination), filtered by status, provider,
 * contact, lead, vertical and creation time.
 */
import { afterCursor, NEWEST_FIRST, toPage } from "@gantry/kit";
import { ability } from "../context.ts";
import { paymentOut } from "../records.ts";

export default ability("payment.list", async (input, call, ctx) => {
  const created = {
    ...(input.createdAfter ? { gte: new Date(input.createdAfter) } : {}),
    ...(input.createdBefore ? { lt: new Date(input.createdBefore) } : {}),
  };
  const rows = await ctx.db.payment.findMany({
    where: {
      tenant: call.tenant,
      ...(input.status ? { status: input.status } : {}),
      ...(input.provider ? { provider: input.provider } : {}),
      ...(input.contactId ? { contactId: input.contactId } : {}),
      ...(input.leadId ? { leadId: input.leadId } : {}),
      ...(input.vertical ? { vertical: input.vertical } : {}),
      AND: [afterCursor(input.cursor), Object.keys(created).length ? { createdAt: created } : {}],
    },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, paymentOut);
});
