/**
 * @module payments/abilities/payment.status
 * One payment, refreshed from its provider first (a `poll` status change when the provider reports a
 * later status; forward only, so a webhook that already moved it wins), with its history.
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { advancePayment } from "../payments.ts";
import { providerOf } from "../providers/index.ts";
import { historyOut, paymentOut } from "../records.ts";

/** Statuses a provider may still change. */
const OPEN = new Set(["pending", "processing", "succeeded"]);

export default ability("payment.status", async (input, call, ctx) => {
  const found = await ctx.db.payment.findFirst({ where: { id: input.id, tenant: call.tenant } });
  if (!found) throw notFound("payment", input.id);
  if (OPEN.has(found.status)) {
    const provider = await providerOf(ctx, call, found);
    const state = await provider.paymentStatus(found);
    await advancePayment(ctx, found.id, state, { source: "poll" });
  }
  const payment = await ctx.db.payment.findFirstOrThrow({
    where: { id: found.id },
    include: { history: { orderBy: { id: "asc" } } },
  });
  return { ...paymentOut(payment), history: payment.history.map(historyOut) };
});
