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
 *
 * The recipient comes from this process's cache when it holds it (src/recipient-cache.ts), so a
 * payout is one statement. That statement writes only while the recipient row still holds what
 * the payout was built from; when it does not, or no provider can be had for the cached row and
 * the row as stored decides otherwise, the call starts again on the row as stored, so a payout is
 * never accepted or refused on a stale recipient.
 */
import { GantryError, idempotentInsert } from "@gantry/kit";
import { toMinor } from "@gantry/kit/money.ts";
import { asPayout, PAYOUT_COLUMNS, type PayoutRow } from "../columns.ts";
import { ability } from "../context.ts";
import { type Payout, type Prisma, type Recipient, SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { acceptPayout, payoutById, recipientChanged, refusedBalance } from "../payout-writes.ts";
import { acceptance, dispatch, insufficientBalance, newPayout } from "../payouts.ts";
import { providerOf } from "../providers/index.ts";
import type { Provider } from "../providers/types.ts";
import { currencyMismatch, payoutOut, unknownRecipient } from "../records.ts";

/** `attempt`'s answer when the recipient it was given may be why it failed: read it afresh. */
const STALE = Symbol("stale recipient");

export default ability("payout.send", async (input, call, ctx) => {
  const amountMinor = toMinor(input.amount, input.currency);

  /**
   * The payout accepted (and sent) to `recipient`, or STALE, with nothing written, when the row
   * no longer holds what the payout was built from, or, for a cached recipient, when no provider
   * could be had for it (its provider, mode and credential source decide which) and the row as
   * stored decides otherwise.
   */
  const attempt = async (recipient: Recipient, cached: boolean) => {
    let provider: Provider;
    try {
      provider = await providerOf(ctx, call, recipient);
    } catch (err) {
      if (!cached) throw err;
      // Asked again only if the row as stored would pick another provider or credential, or be
      // refused before that (a connections outage is not waited out twice).
      const now = await ctx.recipients.read(ctx.pool, call.tenant, recipient.id);
      const decides = (r: Recipient) => [r.currency, r.provider, r.mode, r.credentialSource].join(" ");
      if (now && decides(now) === decides(recipient)) throw err;
      return STALE;
    }
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
    const written = await idempotentInsert<{ id: string }, Payout, PayoutRow>({
      pool: ctx.pool,
      schema: SCHEMA,
      call,
      ability: "payout.send",
      input,
      recordId: id,
      insert: acceptPayout(accepted.record, recipient, accepted.journals, accepted.event),
      // The statement returns the id only: the row is `accepted.record` as written.
      result: () => accepted.record,
      replay: (recordId) => payoutById(ctx.pool, recordId),
      claimFirst: true,
      claimWith: ctx.claimPayout ? (statement) => ctx.claimPayout!(ctx.pool, statement) : undefined,
      replayRow: { table: "payments.payouts", columns: PAYOUT_COLUMNS, result: asPayout },
    }).catch((err): typeof STALE => {
      // Refused by the statement itself, so nothing was written.
      if (recipientChanged(err)) return STALE;
      const available = refusedBalance(err);
      if (available === null) throw err;
      throw insufficientBalance(provider.account, input.currency, amountMinor, available, [
        { currency: input.currency, path: "/input" },
      ]);
    });
    if (written === STALE) return STALE;
    const { result, created } = written;
    if (!created) return payoutOut(result);
    if (accepted.event) {
      // Committed with the payout, so it is published whatever happens next; the answer does not
      // wait for the relay's round (under load, a queue of rounds, each needing a pooled connection).
      void ctx.outbox.flush();
      return payoutOut(result);
    }
    const sent = await dispatch(ctx, provider, [result], new Map([[recipient.id, recipient.providerReference]]));
    return payoutOut(sent.get(id) ?? result);
  };

  const cached = ctx.recipients.cached(call.tenant, input.recipientId);
  // A cached recipient in another currency may be stale: that refusal is made on a fresh read.
  if (cached?.currency === input.currency) {
    const out = await attempt(cached, true);
    if (out !== STALE) return out;
  }
  const recipient = await ctx.recipients.read(ctx.pool, call.tenant, input.recipientId);
  if (!recipient) throw unknownRecipient("/input/recipientId", input.recipientId);
  if (recipient.currency !== input.currency)
    throw currencyMismatch("/input/currency", input.currency, recipient.currency);
  const out = await attempt(recipient, false);
  if (out !== STALE) return out;
  // Changed again between this call's own read and its statement: rare, and a retry reads again.
  throw new GantryError(
    "conflict",
    `/input/recipientId ${input.recipientId} was verified again or changed while this payout was accepted; nothing was recorded or sent. Retry the call.`,
    { reason: "A payout is only accepted on the recipient as it is stored." },
  );
});
