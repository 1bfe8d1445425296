/**
 * @module payments/payments
 * Moving a payment through its state machine (src/states.ts), the one way every source takes —
 * creation, a status refresh (`poll`), a verified provider webhook (`webhook`). In one transaction:
 * the row is locked, the move is checked (forward only; anything else is a no-op), the history row
 * and the ledger journals are written and, for a webhook, the event id is recorded so a replayed
 * event changes nothing. The NATS event follows the commit.
 *
 * Ledger, in the payment's settlement account (src/settlement.ts) — where its funds are, which is
 * not the platform's when they settled in the tenant's own account or a destination: → processing books the money as `pending` (from `customer_payments`); → succeeded books it
 * (if not yet) and settles it into `available` (less a platform application fee, into `fees`); a payment that fails after processing gives the
 * pending amount back; succeeded → refunded takes it out of `available` into `refunds`.
 */
import { isUniqueViolation } from "@gantry/kit";
import type { Context } from "./context.ts";
import type { Payment, Prisma } from "./db.ts";
import { queueStatus } from "./events.ts";
import { post, posted } from "./ledger.ts";
import type { PaymentState } from "./providers/types.ts";
import { execute, type SqlTx } from "./sql.ts";
import { canMovePayment } from "./states.ts";

export interface Origin {
  source: "api" | "webhook" | "poll";
  /** A webhook: its provider and event id (recorded once; a replay is a no-op). */
  webhook?: { provider: string; eventId: string; type: string };
}

type Tx = Prisma.TransactionClient;

async function book(tx: Tx, p: Payment, to: string, at: Date): Promise<void> {
  const journal = (
    suffix: string,
    debit: Parameters<typeof post>[1]["debit"],
    credit: Parameters<typeof post>[1]["credit"],
    memo: string,
  ) =>
    post(tx, {
      tenant: p.tenant,
      settlementAccount: p.settlementAccount,
      id: `${p.id}:${suffix}`,
      currency: p.currency,
      refType: "payment",
      refId: p.id,
      memo,
      debit,
      credit,
      amountMinor: p.amountMinor,
      at,
    });
  const received = async () => journal("received", "pending", "customer_payments", "payment received, not yet settled");
  switch (to) {
    case "processing":
      await received();
      break;
    case "succeeded":
      await received();
      await journal("settled", "available", "pending", "payment settled");
      if (p.feeMinor && p.feeMinor > 0n) {
        await post(tx, {
          tenant: p.tenant,
          settlementAccount: p.settlementAccount,
          id: `${p.id}:application_fee`,
          currency: p.currency,
          refType: "payment",
          refId: p.id,
          memo: "platform application fee",
          debit: "fees",
          credit: "available",
          amountMinor: p.feeMinor,
          at,
        });
      }
      break;
    case "failed":
    case "cancelled":
    case "expired":
      if (await posted(tx, `${p.id}:received`)) {
        await journal("returned", "customer_payments", "pending", `payment ${to} after it was received`);
      }
      break;
    case "refunded":
      await journal("refunded", "refunds", "available", "payment refunded");
      break;
  }
}

/** Records a webhook event id; false when it was already processed. */
export async function recordWebhook(
  tx: SqlTx,
  tenant: string,
  refId: string,
  w: NonNullable<Origin["webhook"]>,
): Promise<boolean> {
  const inserted = await execute(
    tx,
    `INSERT INTO "payments"."webhook_events" (provider, event_id, tenant, type, ref_id, received_at) VALUES ($1, $2, $3, $4, $5, now()) ON CONFLICT DO NOTHING`,
    [w.provider, w.eventId, tenant, w.type, refId],
  );
  return inserted === 1;
}

export interface Advanced<T> {
  record: T;
  moved: boolean;
  /** A webhook event already processed: nothing was done. */
  duplicate: boolean;
}

export async function advancePayment(
  ctx: Pick<Context, "db" | "outbox">,
  id: string,
  state: PaymentState,
  origin: Origin,
): Promise<Advanced<Payment>> {
  const out = await ctx.db
    .$transaction(async (tx) => {
      await tx.$queryRawUnsafe(`SELECT id FROM "payments"."payments" WHERE id = $1 FOR UPDATE`, id);
      const current = await tx.payment.findFirstOrThrow({ where: { id } });
      if (origin.webhook && !(await recordWebhook(tx, current.tenant, id, origin.webhook))) {
        return { record: current, moved: false, duplicate: true, from: current.status };
      }
      const patch: Prisma.PaymentUpdateInput = {};
      if (state.providerReference && !current.providerReference) patch.providerReference = state.providerReference;
      if (state.checkoutUrl && !current.checkoutUrl) patch.checkoutUrl = state.checkoutUrl;
      if (state.applicationFeeMinor && current.feeMinor === null) patch.feeMinor = state.applicationFeeMinor;
      const moving = canMovePayment(current.status as PaymentState["status"], state.status);
      if (!moving && Object.keys(patch).length === 0)
        return { record: current, moved: false, duplicate: false, from: current.status };
      const at = new Date();
      if (moving) {
        patch.status = state.status;
        patch.updatedAt = at;
        if (state.status === "succeeded") patch.succeededAt = at;
        if (state.status === "refunded") patch.refundedAt = at;
        if (["failed", "cancelled", "expired"].includes(state.status)) {
          patch.failureCode = state.failureCode ?? state.status;
          patch.failureMessage = state.failureMessage ?? `The payment ${state.status}.`;
        }
      }
      const record = await tx.payment.update({ where: { id }, data: patch });
      if (moving) {
        await tx.paymentEvent.create({
          data: {
            tenant: current.tenant,
            paymentId: id,
            fromStatus: current.status,
            toStatus: state.status,
            source: origin.source,
            providerEventId: origin.webhook?.eventId ?? null,
            at,
          },
        });
        await book(tx, current, state.status, at);
        await queueStatus(tx, {
          kind: "payment",
          id: record.id,
          tenant: record.tenant,
          status: record.status,
          from: current.status,
          amount: { minor: Number(record.amountMinor), currency: record.currency },
          contactId: record.contactId,
          leadId: record.leadId,
          requestId: record.requestId,
          at: record.updatedAt.toISOString(),
        });
      }
      return { record, moved: moving, duplicate: false, from: current.status };
    })
    .catch((err) => {
      // Two deliveries of one webhook at once: the second waits on the event's key, then finds it.
      if (origin.webhook && isUniqueViolation(err)) return null;
      throw err;
    });
  if (!out) {
    const record = await ctx.db.payment.findFirstOrThrow({ where: { id } });
    return { record, moved: false, duplicate: true };
  }
  if (out.moved) await ctx.outbox.flush();
  return { record: out.record, moved: out.moved, duplicate: out.duplicate };
}
