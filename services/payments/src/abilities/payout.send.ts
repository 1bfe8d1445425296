/**
 * @module payments/abilities/payout.send
 * One payout to a verified recipient. Under the required idempotencyKey, in one transaction, the
 * balance of the account it is sent from (the recipient's provider with the credential in use) is
 * checked and reserved and the payout recorded `pending`; after the commit it is sent
 * (our payout id is the provider's idempotency key / transfer reference). Replays and concurrent
 * identical calls return the same payout and send nothing; only the first call sends.
 */
import { idempotentCreate } from "@gantry/kit";
import { ability } from "../context.ts";
import { type Prisma, SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { toMinor } from "@gantry/kit/money.ts";
import { dispatch, reserve } from "../payouts.ts";
import { providerOf } from "../providers/index.ts";
import { currencyMismatch, payoutOut, unknownRecipient } from "../records.ts";

export default ability("payout.send", async (input, call, ctx) => {
  const recipient = await ctx.db.recipient.findFirst({ where: { id: input.recipientId, tenant: call.tenant } });
  if (!recipient) throw unknownRecipient("/input/recipientId", input.recipientId);
  const amountMinor = toMinor(input.amount, input.currency);
  if (recipient.currency !== input.currency)
    throw currencyMismatch("/input/currency", input.currency, recipient.currency);
  const provider = await providerOf(ctx, call, recipient);
  const id = newId("payout");
  const { result, created } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "payout.send",
    input,
    recordId: id,
    create: async (tx) => {
      const at = new Date();
      await reserve(
        tx,
        call.tenant,
        provider.account,
        [{ id, amountMinor, currency: input.currency, path: "/input" }],
        at,
      );
      return tx.payout.create({
        data: {
          id,
          tenant: call.tenant,
          recipientId: recipient.id,
          accountName: recipient.accountName,
          accountNumberLast4: recipient.accountNumberLast4,
          bankCode: recipient.bankCode,
          bankName: recipient.bankName,
          country: recipient.country,
          amountMinor,
          currency: input.currency,
          status: "pending",
          provider: provider.name,
          mode: provider.mode,
          credentialSource: provider.credentialSource,
          settlementAccount: provider.account,
          providerAccount: provider.connectedAccount,
          description: input.description ?? null,
          idempotencyKey: input.idempotencyKey,
          metadata: (input.metadata ?? {}) as Prisma.InputJsonValue,
          vertical: call.verticalId ?? null,
          requestId: call.requestId,
          createdAt: at,
          updatedAt: at,
        },
      });
    },
    replay: (recordId) => ctx.db.payout.findFirstOrThrow({ where: { id: recordId } }),
  });
  if (!created) return payoutOut(result);
  await dispatch(ctx, provider, [result]);
  return payoutOut(await ctx.db.payout.findFirstOrThrow({ where: { id } }));
});
