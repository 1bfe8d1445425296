/**
 * @module payments/abilities/payout.batch
 * Up to 500 payouts in one batch. Every item is validated before anything is recorded or sent
 * (recipient of this tenant, currency known and the recipient's, precision, unique `reference`,
 * one provider), and every problem is reported at once with the item's path. Under the required
 * idempotencyKey, in one transaction, the totals per currency are checked against the available
 * balance of the account the batch is sent from and reserved and the batch and its items are recorded; after the commit the items are
 * sent (a bulk transfer where the provider has one) and each succeeds or fails on its own.
 */
import { type ErrorDetail, GantryError, idempotentCreate } from "@gantry/kit";
import { ability } from "../context.ts";
import { type Recipient, SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { toMinor } from "@gantry/kit/money.ts";
import { dispatch, newPayout, reserve } from "../payouts.ts";
import { providerOf } from "../providers/index.ts";
import { batchOut, currencyMismatch, unknownRecipient } from "../records.ts";

function detailsOf(err: unknown): ErrorDetail[] {
  if (err instanceof GantryError && err.details?.length) return err.details;
  throw err;
}

export default ability("payout.batch", async (input, call, ctx) => {
  const ids = [...new Set(input.items.map((i) => i.recipientId))];
  const recipients = new Map(
    (await ctx.db.recipient.findMany({ where: { id: { in: ids }, tenant: call.tenant } })).map((r) => [r.id, r]),
  );
  const problems: ErrorDetail[] = [];
  const references = new Map<string, number>();
  let first: Recipient | undefined;
  const items = input.items.map((item, index) => {
    const path = `/input/items/${index}`;
    let amountMinor = 0n;
    try {
      amountMinor = toMinor(item.amount, item.currency, path);
    } catch (err) {
      problems.push(...detailsOf(err));
    }
    const r = recipients.get(item.recipientId);
    if (!r) problems.push(...detailsOf(unknownRecipient(`${path}/recipientId`, item.recipientId)));
    else {
      if (r.currency !== item.currency)
        problems.push(...detailsOf(currencyMismatch(`${path}/currency`, item.currency, r.currency)));
      first ??= r;
      if (r.provider !== first.provider || r.mode !== first.mode) {
        problems.push({
          path: `${path}/recipientId`,
          message: `${path}/recipientId is a ${r.mode} ${r.provider} recipient; a batch goes through one provider (${first.mode} ${first.provider})`,
          code: "recipient_provider",
        });
      }
    }
    if (item.reference !== undefined) {
      const seen = references.get(item.reference);
      if (seen !== undefined) {
        problems.push({
          path: `${path}/reference`,
          message: `${path}/reference repeats /input/items/${seen}/reference; references are unique within a batch`,
          code: "duplicate_reference",
        });
      } else references.set(item.reference, index);
    }
    return { ...item, index, amountMinor, recipient: r, id: newId("payout") };
  });
  if (problems.length || !first) {
    throw new GantryError(
      "validation_failed",
      `${problems.length} problem(s) in the batch items; nothing was sent. Fix every item listed in details and send the batch again.`,
      { details: problems },
    );
  }
  const provider = await providerOf(ctx, call, first);
  const batchId = newId("batch");
  const { result, created } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "payout.batch",
    input,
    recordId: batchId,
    txOptions: { timeout: 60_000 },
    create: async (tx) => {
      const at = new Date();
      await reserve(
        tx,
        call.tenant,
        provider.account,
        items.map((i) => ({
          id: i.id,
          amountMinor: i.amountMinor,
          currency: i.currency,
          path: `/input/items/${i.index}`,
        })),
        at,
      );
      await tx.payoutBatch.create({
        data: {
          id: batchId,
          tenant: call.tenant,
          status: "pending",
          description: input.description ?? null,
          idempotencyKey: input.idempotencyKey,
          provider: provider.name,
          mode: provider.mode,
          credentialSource: provider.credentialSource,
          vertical: call.verticalId ?? null,
          requestId: call.requestId,
          createdAt: at,
          updatedAt: at,
        },
      });
      await tx.payout.createMany({
        data: items.map((i) =>
          newPayout({
            id: i.id,
            call,
            recipient: i.recipient as Recipient,
            provider,
            amountMinor: i.amountMinor,
            currency: i.currency,
            description: i.description ?? null,
            reference: i.reference ?? null,
            idempotencyKey: null,
            metadata: {},
            batchId,
            position: i.index,
            at,
          }),
        ),
      });
      return batchId;
    },
    replay: async (recordId) => recordId,
  });
  if (created) {
    const pending = await ctx.db.payout.findMany({ where: { batchId: result }, orderBy: { position: "asc" } });
    await dispatch(ctx, provider, pending);
  }
  const batch = await ctx.db.payoutBatch.findFirstOrThrow({
    where: { id: result },
    include: { items: { orderBy: { position: "asc" } } },
  });
  return batchOut(batch, batch.items);
});
