/**
 * @module payments/abilities/payment.initiate
 * Creates a payment: the record (`pending`, with its first history row) is written under the
 * caller's idempotencyKey first (one statement that claims the key: src/payment-writes.ts; the key
 * is looked up only when it was taken), then the provider is asked for the payment link / checkout
 * with our payment id as its idempotency key and reference — so a retry, or 20 concurrent identical
 * calls, create one payment and one checkout. A provider that refuses marks the payment `failed`
 * (`provider_error`) and the call answers with the provider error; replaying the key returns that
 * failed payment. A checkout made in process (the sandbox) cannot fail or reach anyone, so it is
 * written with the record instead: one statement in all.
 *
 * A `recipientId` routes the funds to another account, so it must be the tenant's own (its
 * connection's account; src/settlement.ts); the payment is booked in the account its funds settle in.
 */
import { idempotentInsert } from "@gantry/kit";
import { asPayment, PAYMENT_COLUMNS, type PaymentRow } from "../columns.ts";
import { ability } from "../context.ts";
import { type Payment, SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { toMinor } from "@gantry/kit/money.ts";
import { insertPayment, paymentById, recordCheckout } from "../payment-writes.ts";
import { advancePayment } from "../payments.ts";
import { providerFor } from "../providers/index.ts";
import { paymentOut } from "../records.ts";
import { ownedRecipient, paymentAccount } from "../settlement.ts";

export default ability("payment.initiate", async (input, call, ctx) => {
  const amountMinor = toMinor(input.amount, input.currency);
  const provider = await providerFor(ctx, call, input.provider);
  const recipientId = input.recipientId ?? null;
  if (recipientId) await ownedRecipient(ctx, call, provider.name, recipientId);
  const id = newId("payment");
  const at = new Date();
  const request = {
    id,
    amountMinor,
    currency: input.currency,
    description: input.description ?? null,
    customerEmail: input.customerEmail ?? null,
    callbackUrl: input.callbackUrl ?? null,
    recipientId,
  };
  // A checkout that moves the payment at once takes the state machine below, like a remote one.
  const made = provider.checkoutInProcess?.(request);
  const inProcess = made?.status === "pending" ? made : undefined;
  const payment: Payment = {
    id,
    tenant: call.tenant,
    status: "pending",
    amountMinor,
    currency: input.currency,
    feeMinor: null,
    provider: provider.name,
    mode: provider.mode,
    credentialSource: provider.credentialSource,
    checkoutUrl: inProcess?.checkoutUrl ?? null,
    providerReference: inProcess?.providerReference ?? null,
    description: input.description ?? null,
    customerEmail: input.customerEmail ?? null,
    callbackUrl: input.callbackUrl ?? null,
    recipientId,
    settlementAccount: paymentAccount(provider, recipientId),
    providerAccount: provider.connectedAccount,
    contactId: input.contactId ?? null,
    leadId: input.leadId ?? null,
    vertical: call.verticalId ?? null,
    failureCode: null,
    failureMessage: null,
    requestId: call.requestId,
    createdAt: at,
    updatedAt: at,
    expiresAt: inProcess?.expiresAt ?? null,
    succeededAt: null,
    refundedAt: null,
  };
  const { result, created } = await idempotentInsert<{ id: string }, Payment, PaymentRow>({
    pool: ctx.pool,
    schema: SCHEMA,
    call,
    ability: "payment.initiate",
    input,
    recordId: id,
    insert: insertPayment(payment),
    // The statement returns the id only: the row is `payment` as written.
    result: () => payment,
    replay: (recordId) => paymentById(ctx.pool, recordId),
    claimFirst: true,
    claimWith: ctx.claimPayment ? (statement) => ctx.claimPayment!(ctx.pool, statement) : undefined,
    replayRow: { table: "payments.payments", columns: PAYMENT_COLUMNS, result: asPayment },
  });
  if (!created || inProcess) return paymentOut(result);
  let state: Awaited<ReturnType<typeof provider.createPayment>>;
  try {
    state = await provider.createPayment(request);
  } catch (err) {
    await advancePayment(
      ctx,
      id,
      {
        status: "failed",
        failureCode: "provider_error",
        failureMessage: `${provider.name} refused or could not be reached.`,
      },
      { source: "api" },
    );
    throw err;
  }
  // A checkout that leaves the payment pending (the usual answer) is one UPDATE; a provider that
  // already reports a move takes the state machine's transaction.
  if (state.status === "pending") return paymentOut(await recordCheckout(ctx.pool, id, state));
  if (state.expiresAt) await ctx.db.payment.update({ where: { id }, data: { expiresAt: state.expiresAt } });
  const { record } = await advancePayment(ctx, id, state, { source: "api" });
  return paymentOut(record);
});
