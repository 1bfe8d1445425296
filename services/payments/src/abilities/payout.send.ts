/**
 * @module payments/abilities/payout.send
 * One payout to a verified recipient. Under the required idempotencyKey, claimed in the same
 * statement (src/payout-writes.ts; the key is looked up only when it was taken), the
 * balance of the account it is sent from (the recipient's provider with the credential in use) is
 * checked and reserved and the payout recorded `pending`; after the commit it is sent (our payout id
 * is the provider's idempotency key / transfer reference) and moved in one more statement. The
 * sandbox sends nothing, so its outcome (paid, or failed and released) is written by the accepting
 * statement itself. Replays and concurrent identical calls return the same payout and send
 * nothing; only the first call sends.
 */
import { idempotentInsert } from "@gantry/kit";
import { asPayout, PAYOUT_COLUMNS, type PayoutRow } from "../columns.ts";
import { ability } from "../context.ts";
import { type Payout, type Prisma, SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { toMinor } from "@gantry/kit/money.ts";
import { acceptPayout, payoutById, recipientOf, refusedBalance } from "../payout-writes.ts";
import { acceptance, dispatch, insufficientBalance, newPayout } from "../payouts.ts";
import { providerOf } from "../providers/index.ts";
import { currencyMismatch, payoutOut, unknownRecipient } from "../records.ts";

export default ability("payout.send", async (input, call, ctx) => {
  const recipient = await recipientOf(ctx.pool, input.recipientId, call.tenant);
  if (!recipient) throw unknownRecipient("/input/recipientId", input.recipientId);
  const amountMinor = toMinor(input.amount, input.currency);
  if (recipient.currency !== input.currency)
    throw currencyMismatch("/input/currency", input.currency, recipient.currency);
  const provider = await providerOf(ctx, call, recipient);
  const id = newId("payout");
  const payout = newPayout({
    id,
    call,
    recipient,
    provider,
    amountMinor,
    currency: input.currency,
    description: input.description ?? null,
    reference: null,
    idempotencyKey: input.idempotencyKey,
    metadata: (input.metadata ?? {}) as Prisma.JsonObject,
    batchId: null,
    position: 0,
    at: new Date(),
  });
  // The sandbox's outcome is known here, so it is written with the payout (src/payouts.ts `acceptance`).
  const made = provider.payoutInProcess?.({
    id,
    amountMinor,
    currency: input.currency,
    description: payout.description,
    recipientReference: recipient.providerReference,
    accountNumberLast4: recipient.accountNumberLast4,
  });
  const accepted = acceptance(payout, made?.status === "pending" ? undefined : made);
  const { result, created } = await idempotentInsert<{ id: string }, Payout, PayoutRow>({
    pool: ctx.pool,
    schema: SCHEMA,
    call,
    ability: "payout.send",
    input,
    recordId: id,
    insert: acceptPayout(accepted.record, accepted.journals, accepted.event),
    // The statement returns the id only: the row is `accepted.record` as written.
    result: () => accepted.record,
    replay: (recordId) => payoutById(ctx.pool, recordId),
    claimFirst: true,
    replayRow: { table: "payments.payouts", columns: PAYOUT_COLUMNS, result: asPayout },
  }).catch((err) => {
    // Refused by the statement itself, so nothing was written.
    const available = refusedBalance(err);
    if (available === null) throw err;
    throw insufficientBalance(provider.account, input.currency, amountMinor, available, [
      { currency: input.currency, path: "/input" },
    ]);
  });
  if (!created) return payoutOut(result);
  if (accepted.event) {
    // Committed with the payout, so it is published whatever happens next; the answer does not
    // wait for the relay's round (under load, a queue of rounds, each needing a pooled connection).
    void ctx.outbox.flush();
    return payoutOut(result);
  }
  const sent = await dispatch(ctx, provider, [result], new Map([[recipient.id, recipient.providerReference]]));
  return payoutOut(sent.get(id) ?? result);
});
