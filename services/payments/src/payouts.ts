/**
 * @module payments/payouts
 * Payouts: reserving the balance when one is accepted, sending it, and moving it through its state
 * machine (src/states.ts) from whatever reports a status (the send itself, a refresh, a webhook).
 *
 * - Accepting (inside the idempotent creation's transaction): the tenant's balance of the currency in
 *   the settlement account the payout is sent from (src/settlement.ts) is locked, a payout beyond its
 *   `available` is refused (409 `insufficient_balance`) — never queued, never sent — and the amount
 *   moves `available` → `reserved` there. Money in any other account (the sandbox, the tenant's own
 *   account, a destination) cannot pay a payout sent from this one.
 * - Moving: paid → `reserved` → `payouts_sent` (a provider fee `available` → `fees`); failed or
 *   cancelled → back to `available`; paid → reversed → back to `available`. A batch's status is
 *   derived from its items in the same transaction (the batch row is locked first).
 */
import { type CallContext, GantryError, inTransaction, type OutboxEvent } from "@gantry/kit";
import type pg from "pg";
import type { Context } from "./context.ts";
import type { Payout, Prisma, Recipient } from "./db.ts";
import { queueStatus, type StatusMessage, statusEvent } from "./events.ts";
import { balanceKey, balances, lockBalance, post } from "./ledger.ts";
import { moneyOut } from "@gantry/kit/money.ts";
import { type Advanced, type Origin, recordWebhook } from "./payments.ts";
import {
  batchOf,
  lockBatch,
  lockPayout,
  movePayout,
  type PayoutJournal,
  type PayoutPatch,
  recipientReferences,
  updatePayout,
} from "./payout-writes.ts";
import { providerOf } from "./providers/index.ts";
import type { PayoutState, Provider } from "./providers/types.ts";
import { batchStatus, canMovePayout } from "./states.ts";

type Tx = Prisma.TransactionClient;

/** A payout accepted now (`pending`) to `recipient` through `provider`: what payout.send and payout.batch record. */
export function newPayout(p: {
  id: string;
  call: Pick<CallContext, "tenant" | "verticalId" | "requestId">;
  recipient: Recipient;
  provider: Provider;
  amountMinor: bigint;
  currency: string;
  description: string | null;
  reference: string | null;
  idempotencyKey: string | null;
  metadata: Prisma.JsonObject;
  batchId: string | null;
  position: number;
  at: Date;
}): Payout & { metadata: Prisma.JsonObject } {
  const { recipient: r, provider } = p;
  return {
    id: p.id,
    tenant: p.call.tenant,
    batchId: p.batchId,
    position: p.position,
    recipientId: r.id,
    accountName: r.accountName,
    accountNumberLast4: r.accountNumberLast4,
    bankCode: r.bankCode,
    bankName: r.bankName,
    country: r.country,
    amountMinor: p.amountMinor,
    currency: p.currency,
    feeMinor: null,
    status: "pending",
    provider: provider.name,
    mode: provider.mode,
    credentialSource: provider.credentialSource,
    settlementAccount: provider.account,
    providerAccount: provider.connectedAccount,
    description: p.description,
    reference: p.reference,
    idempotencyKey: p.idempotencyKey,
    metadata: p.metadata,
    vertical: p.call.verticalId ?? null,
    providerReference: null,
    failureCode: null,
    failureMessage: null,
    requestId: p.call.requestId,
    createdAt: p.at,
    updatedAt: p.at,
    paidAt: null,
  };
}

/** 409 `insufficient_balance`: the payouts of `currency` in the request exceed what the account holds. */
export function insufficientBalance(
  settlementAccount: string,
  currency: string,
  total: bigint,
  available: bigint,
  payouts: Array<{ currency: string; path: string }>,
): GantryError {
  return new GantryError(
    "conflict",
    `The payout total of ${moneyOut(total, currency).amount} ${currency} exceeds the available balance of ${moneyOut(available, currency).amount} ${currency} in ${settlementAccount}, the account payouts are sent from; nothing was sent. Check payout.balance (money settled in other accounts cannot be paid out from this one) and lower the amount.`,
    {
      reason: "A payout is never sent beyond the available balance of the account it is paid from.",
      details: payouts
        .filter((p) => p.currency === currency)
        .map((p) => ({
          path: `${p.path}/amount`,
          message: `${p.path}/amount exceeds the available ${currency} balance of ${settlementAccount} (with the other payouts of the request)`,
          code: "insufficient_balance",
          available: moneyOut(available, currency),
        })),
    },
  );
}

/**
 * Locks the balances of `tenant` in `settlementAccount` (the account the payouts are sent from) in
 * the given currencies and checks that each total fits in `available` there; then reserves each
 * payout. Runs inside the creating transaction.
 */
export async function reserve(
  tx: Tx,
  tenant: string,
  settlementAccount: string,
  payouts: Array<{ id: string; amountMinor: bigint; currency: string; path: string }>,
  at: Date,
): Promise<void> {
  const totals = new Map<string, bigint>();
  for (const p of payouts) totals.set(p.currency, (totals.get(p.currency) ?? 0n) + p.amountMinor);
  for (const currency of [...totals.keys()].sort()) await lockBalance(tx, tenant, settlementAccount, currency);
  for (const [currency, total] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
    const held = await balances(tx, tenant, { settlementAccount, currency });
    const available = held.get(balanceKey(settlementAccount, currency))?.available ?? 0n;
    if (total > available) throw insufficientBalance(settlementAccount, currency, total, available, payouts);
  }
  for (const p of payouts) {
    await post(tx, {
      tenant,
      settlementAccount,
      id: `${p.id}:reserved`,
      currency: p.currency,
      refType: "payout",
      refId: p.id,
      memo: "payout accepted: amount reserved",
      debit: "reserved",
      credit: "available",
      amountMinor: p.amountMinor,
      at,
    });
  }
}

/** The journals a move of `p` to `to` books (README "Ledger"). */
export function payoutJournals(p: Payout, to: string, feeMinor: bigint | null): PayoutJournal[] {
  switch (to) {
    case "paid":
      return [
        { suffix: "paid", debit: "payouts_sent", credit: "reserved", amountMinor: p.amountMinor, memo: "payout paid" },
        ...(feeMinor && feeMinor > 0n
          ? [
              {
                suffix: "fee",
                debit: "fees",
                credit: "available",
                amountMinor: feeMinor,
                memo: "provider transfer fee",
              } as const,
            ]
          : []),
      ];
    case "failed":
    case "cancelled":
      return [
        {
          suffix: "released",
          debit: "available",
          credit: "reserved",
          amountMinor: p.amountMinor,
          memo: `payout ${to}: reservation released`,
        },
      ];
    case "reversed":
      return [
        {
          suffix: "reversed",
          debit: "available",
          credit: "payouts_sent",
          amountMinor: p.amountMinor,
          memo: "payout reversed by the bank",
        },
      ];
    default:
      return [];
  }
}

/**
 * What accepting `p` writes: its reservation; and, when the provider answered in process (the
 * sandbox: nothing was sent anywhere, nothing can fail or be retried), the move it reported, in the
 * same statement (src/payout-writes.ts `acceptPayout`): the payout as it is after it, its journals
 * and its event. A live provider is called only after the reservation is committed (`dispatch`).
 */
export function acceptance(
  p: Payout,
  outcome: PayoutState | undefined,
): { record: Payout; journals: PayoutJournal[]; event: OutboxEvent | null } {
  const reserved: PayoutJournal = {
    suffix: "reserved",
    debit: "reserved",
    credit: "available",
    amountMinor: p.amountMinor,
    memo: "payout accepted: amount reserved",
  };
  const { moving, patch } = outcome ? patchOf(p, outcome, p.createdAt) : { moving: false, patch: null };
  if (!outcome || !moving || !patch) return { record: p, journals: [reserved], event: null };
  const record: Payout = {
    ...p,
    status: outcome.status,
    paidAt: patch.paidAt,
    feeMinor: patch.feeMinor,
    failureCode: patch.failureCode,
    failureMessage: patch.failureMessage,
    providerReference: patch.providerReference,
  };
  return {
    record,
    journals: [reserved, ...payoutJournals(p, outcome.status, patch.feeMinor)],
    event: statusEvent(movedMessage(record, p.status, p.createdAt)),
  };
}

/** What moving `current` as `state` reports changes; `moving` false: at most the provider reference is new. */
function patchOf(current: Payout, state: PayoutState, at: Date): { moving: boolean; patch: PayoutPatch } {
  const providerReference = state.providerReference && !current.providerReference ? state.providerReference : null;
  const moving = canMovePayout(current.status as PayoutState["status"], state.status);
  const failing = moving && (state.status === "failed" || state.status === "cancelled");
  const paid = moving && state.status === "paid";
  return {
    moving,
    patch: {
      status: moving ? state.status : null,
      updatedAt: moving ? at : null,
      paidAt: paid ? at : null,
      feeMinor: paid ? (state.feeMinor ?? null) : null,
      failureCode: failing ? (state.failureCode ?? state.status) : null,
      failureMessage: failing ? (state.failureMessage ?? `The payout was ${state.status}.`) : null,
      providerReference,
    },
  };
}

function movedMessage(record: Payout, from: string, at: Date): StatusMessage {
  return {
    kind: "payout",
    id: record.id,
    tenant: record.tenant,
    status: record.status,
    from,
    amount: { minor: Number(record.amountMinor), currency: record.currency },
    batchId: record.batchId,
    requestId: record.requestId,
    at: at.toISOString(),
  };
}

/**
 * Moves one payout (and derives its batch's status). A payout outside a batch whose current record
 * the caller holds, moved by anything but a webhook, moves in one statement whose precondition is
 * the status the caller saw (src/payout-writes.ts `movePayout`): the hot path of every payout.send.
 * When that status changed meanwhile (a webhook or a poll got there first), or the move needs more
 * (a batch row to lock and derive, a webhook id to record), it runs in one transaction on a pg
 * client of the tenant-scoped pool that locks the payout, reads its status and decides.
 */
export async function advancePayout(
  ctx: Pick<Context, "pool" | "outbox">,
  id: string,
  state: PayoutState,
  origin: Origin,
  /** The payout as the caller last read it, when it has it: saves reads, and enables the one statement. */
  known?: Payout,
): Promise<Advanced<Payout>> {
  if (known && known.batchId === null && !origin.webhook) {
    const at = new Date();
    const { moving, patch } = patchOf(known, state, at);
    if (moving) {
      const moved = await movePayout(
        ctx.pool,
        known,
        patch,
        payoutJournals(known, state.status, patch.feeMinor),
        statusEvent(movedMessage({ ...known, status: state.status }, known.status, at)),
      );
      if (moved) {
        await ctx.outbox.flush();
        return { record: moved, moved: true, duplicate: false };
      }
    }
  }
  let queued = false;
  const out = await inTransaction(ctx.pool, async (tx) => {
    // The batch row first, then the item: the order every writer of a batch takes.
    const batchId = known ? known.batchId : await batchOf(tx, id);
    if (batchId) await lockBatch(tx, batchId);
    const current = await lockPayout(tx, id);
    if (origin.webhook && !(await recordWebhook(tx, current.tenant, id, origin.webhook))) {
      return { record: current, moved: false, duplicate: true };
    }
    const at = new Date();
    const { moving, patch } = patchOf(current, state, at);
    if (!moving && !patch.providerReference) return { record: current, moved: false, duplicate: false };
    const record = await updatePayout(tx, id, patch);
    if (moving) {
      for (const j of payoutJournals(current, state.status, patch.feeMinor)) {
        await post(tx, {
          tenant: current.tenant,
          settlementAccount: current.settlementAccount,
          id: `${current.id}:${j.suffix}`,
          currency: current.currency,
          refType: "payout",
          refId: current.id,
          memo: j.memo,
          debit: j.debit,
          credit: j.credit,
          amountMinor: j.amountMinor,
          at,
        });
      }
      queued = true;
      await queueStatus(tx, movedMessage(record, current.status, at));
      if (record.batchId) await deriveBatch(tx, record.batchId, at);
    }
    return { record, moved: moving, duplicate: false };
  });
  if (queued) await ctx.outbox.flush();
  return out;
}

/** A batch's status from its items' (locked batch row, inside the item's move); its event when it changed. */
async function deriveBatch(tx: pg.ClientBase, batchId: string, at: Date): Promise<void> {
  // `status::text`: an array of the payout_status domain has its own type, which pg would hand back
  // as the array's text; a scalar domain column arrives as its base type (text) anyway.
  const { rows } = await tx.query<{
    tenant: string;
    status: string;
    completed: boolean;
    requestId: string;
    items: string[];
  }>(
    `SELECT b.tenant, b.status, b.completed_at IS NOT NULL AS completed, b.request_id AS "requestId",
            ARRAY(SELECT i.status::text FROM payments.payouts i WHERE i.batch_id = b.id) AS items
       FROM payments.payout_batches b WHERE b.id = $1`,
    [batchId],
  );
  const batch = rows[0];
  if (!batch) throw new Error(`payout batch ${batchId} not found`);
  const status = batchStatus(batch.items);
  const final = status === "completed" || status === "partially_failed" || status === "failed";
  await tx.query(
    `UPDATE payments.payout_batches SET status = $2, updated_at = $3,
       completed_at = CASE WHEN $4 AND completed_at IS NULL THEN $3 ELSE completed_at END
     WHERE id = $1`,
    [batchId, status, at, status !== batch.status && final],
  );
  if (status !== batch.status) {
    await queueStatus(tx, {
      kind: "batch",
      id: batchId,
      tenant: batch.tenant,
      status,
      from: batch.status,
      requestId: batch.requestId,
      at: at.toISOString(),
    });
  }
}

/**
 * Sends accepted payouts to the provider and records what it answered. A provider that cannot be
 * reached leaves them `pending` (reserved, not sent): a later payout.status sends them again under
 * the same reference, which the provider keeps unique. Answers the payouts it moved, as they are now.
 */
export async function dispatch(
  ctx: Context,
  provider: Provider,
  all: Payout[],
  /** The recipients' provider references when the caller has them (else they are read). */
  references?: Map<string, string | null>,
): Promise<Map<string, Payout>> {
  const after = new Map<string, Payout>();
  // A payout is paid from the account its amount was reserved in: when the tenant's credential now
  // reaches another account (a connection changed), it is not sent from that one.
  const payouts = all.filter((p) => p.settlementAccount === provider.account);
  if (payouts.length < all.length) {
    ctx.log.warn(
      { payouts: all.filter((p) => !payouts.includes(p)).map((p) => p.id), account: provider.account },
      "payouts reserved in another settlement account than the credential reaches now; not sent",
    );
  }
  if (payouts.length === 0) return after;
  const refOf = references ?? (await recipientReferences(ctx.pool, [...new Set(payouts.map((p) => p.recipientId))]));
  let states: PayoutState[];
  try {
    states = await provider.sendPayouts(
      payouts.map((p) => ({
        id: p.id,
        amountMinor: p.amountMinor,
        currency: p.currency,
        description: p.description,
        recipientReference: refOf.get(p.recipientId) ?? null,
        accountNumberLast4: p.accountNumberLast4,
      })),
    );
  } catch (err) {
    ctx.log.warn({ payouts: payouts.map((p) => p.id), err: String(err) }, "sending payouts failed; they stay pending");
    return after;
  }
  for (const [i, p] of payouts.entries()) {
    const s = states[i];
    // Whatever the provider reported, the payout was handed over: it is at least processing.
    const { record } = await advancePayout(
      ctx,
      p.id,
      { ...s, status: s.status === "pending" ? "processing" : s.status },
      { source: "api" },
      p,
    );
    after.set(p.id, record);
  }
  return after;
}

/**
 * Refreshes one payout from its provider. A payout still `pending` (accepted, its send not known to
 * have reached the provider) is first looked up by its reference; only when the provider does not
 * know it is it sent again, under the same reference / idempotency key.
 */
export async function refreshPayout(
  ctx: Context,
  call: Pick<CallContext, "tenant" | "requestId">,
  p: Payout,
): Promise<Payout> {
  if (p.status !== "pending" && p.status !== "processing" && p.status !== "paid") return p;
  const provider = await providerOf(ctx, call, p);
  const ask = () =>
    provider.payoutStatus({
      id: p.id,
      providerReference: p.providerReference,
      accountNumberLast4: p.accountNumberLast4,
    });
  if (p.status === "pending") {
    const known = await ask().catch(() => null);
    if (known && known.status !== "pending") await advancePayout(ctx, p.id, known, { source: "poll" }, p);
    else await dispatch(ctx, provider, [p]);
  } else {
    await advancePayout(ctx, p.id, await ask(), { source: "poll" }, p);
  }
  return ctx.db.payout.findFirstOrThrow({ where: { id: p.id } });
}
