/**
 * @module catalogue/payments/payout
 * The payments service's abilities of the `payout` area (Payouts: payouts to verified accounts).
 * `proto/catalogue/payments.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import {
  bool,
  enumOf,
  fields,
  int,
  list,
  metadataOut,
  nullableStr,
  nullableTimestamp,
  page,
  str,
  timestamp,
} from "../output.ts";
import {
  amount,
  array,
  currency,
  cursor,
  dateTime,
  id,
  limit,
  line,
  metadata,
  nullable,
  object,
  oneOfValues,
  text,
  union,
} from "../schema.ts";
import {
  recordVertical,
  prefixedId,
  moneyOut,
  modeOut,
  credentialSourceOut,
  providerOut,
  failureProps,
} from "./shared.ts";

/** Payout statuses (ours; the spec does not show them). */
export const PAYOUT_STATUSES = ["pending", "processing", "paid", "failed", "cancelled", "reversed"] as const;

function payoutIdempotencyKey() {
  return text(
    "Required: your unique reference for this payout. Reusing it with the same input returns the first result instead of paying again; reusing it with different input is refused (409).",
    255,
  );
}

/** Batch statuses: pending → processing → completed | partially_failed | failed. */
export const PAYOUT_BATCH_STATUSES = ["pending", "processing", "completed", "partially_failed", "failed"] as const;

/** Properties of one payout (payout.send, or one item of a batch). */
function payoutProps() {
  return {
    id: prefixedId("po", "Payout id (`po_…`)."),
    tenant: str("Tenant the payout belongs to."),
    batchId: nullable(
      prefixedId("pob", "Batch id."),
      "Batch the payout is an item of (`pob_…`); null for payout.send.",
    ),
    recipientId: prefixedId("rcp", "Recipient paid (`rcp_…`, from payout.verify_account)."),
    destination: fields(
      {
        accountName: str("Holder name as the bank reported it at verification."),
        accountNumberLast4: str("Last four characters of the account number or IBAN (never the whole number)."),
        bankCode: nullableStr("Bank, sort or routing code; null for IBANs."),
        bankName: nullableStr("Bank name when the provider reports it, or null."),
        country: str("Country of the bank, ISO 3166-1 alpha-2."),
      },
      [],
      { description: "The recipient's bank account as verified (a snapshot, so the payout stays readable)." },
    ),
    amount: moneyOut("Amount sent to the recipient."),
    fee: nullable(moneyOut("Fee."), "Transfer fee the provider charged, in the payout's currency; null until known."),
    status: enumOf(
      "pending: accepted, not yet sent (also while queued for balance); processing: sent to the provider; paid, failed, cancelled: final; reversed: returned by the bank after being paid.",
      PAYOUT_STATUSES,
    ),
    provider: providerOut("Provider that carries the payout (neutral names)."),
    mode: modeOut(),
    credentialSource: credentialSourceOut(),
    description: nullableStr("Narration shown to the recipient; null if none."),
    reference: nullableStr("Batch items: your `reference` for the item; null for payout.send."),
    idempotencyKey: nullableStr(
      "payout.send: your idempotencyKey (your reference for the payout); null for batch items (the batch holds the key).",
    ),
    metadata: metadataOut("Your key-value data from payout.send (`{}` when none; batch items have none)."),
    vertical: recordVertical("payout"),
    providerReference: nullableStr("The provider's own id of the transfer or payout, or null until sent."),
    ...failureProps(),
    requestId: str("Request id (`req_…`) of the call that created the payout: a receipt trust claims can cite."),
    created: timestamp("When the payout was accepted (RFC 3339)."),
    updated: timestamp("Last status change (RFC 3339)."),
    paid: nullableTimestamp("When the provider reported it paid (RFC 3339); null unless paid or later reversed."),
  };
}

function payout(description = "A payout.", title?: string) {
  return fields(payoutProps(), [], title ? { title, description } : { description });
}

/** A payout batch with every item. */
function batch(description = "A payout batch.", title?: string) {
  return fields(
    {
      id: prefixedId("pob", "Batch id (`pob_…`)."),
      tenant: str("Tenant the batch belongs to."),
      status: enumOf(
        "pending → processing → completed (every item paid) | partially_failed (some items failed or were cancelled) | failed (none paid).",
        PAYOUT_BATCH_STATUSES,
      ),
      description: nullableStr("What the batch is for; null if none."),
      idempotencyKey: str("Your idempotencyKey for the batch."),
      mode: modeOut(),
      credentialSource: credentialSourceOut(),
      vertical: recordVertical("batch (and each of its items)"),
      counts: fields(
        {
          total: int("Items in the batch."),
          pending: int("Items pending."),
          processing: int("Items processing."),
          paid: int("Items paid."),
          failed: int("Items failed."),
          cancelled: int("Items cancelled."),
          reversed: int("Items reversed after being paid."),
        },
        [],
        { description: "Items by status." },
      ),
      totals: list(
        "Sum of the item amounts per currency, in currency order.",
        moneyOut("Total of one currency's items."),
      ),
      items: list("Every item as a payout, in input order.", payout("One item.")),
      requestId: str("Request id (`req_…`) of the payout.batch call: a receipt trust claims can cite."),
      created: timestamp("When the batch was accepted (RFC 3339)."),
      updated: timestamp("Last change of the batch or an item (RFC 3339)."),
      completed: nullableTimestamp("When the last item reached a final status (RFC 3339); null before."),
    },
    [],
    title ? { title, description } : { description },
  );
}

/** A verified bank account registered as a payout recipient. */
function recipient() {
  return fields(
    {
      id: prefixedId("rcp", "Recipient id (`rcp_…`): the recipientId of payout.send and payout.batch."),
      tenant: str("Tenant the recipient belongs to."),
      accountName: str("Holder name as the bank reports it."),
      nameMatch: nullable(
        enumOf("Comparison.", ["match", "partial", "mismatch"]),
        "How `accountName` of the input compares with the bank's name (case, spacing and word order ignored): match, partial (some names agree) or mismatch; null when no accountName was given.",
      ),
      accountNumberLast4: str(
        "Last four characters of the account number or IBAN (the full number is never returned).",
      ),
      bankCode: nullableStr("Bank, sort or routing code as given; null for IBANs."),
      bankName: nullableStr("Bank name when the provider reports it, or null."),
      country: str("Country of the bank, ISO 3166-1 alpha-2."),
      currency: str("Currency the account receives, ISO 4217.", { pattern: "^[A-Z]{3}$" }),
      provider: providerOut("Provider that resolved the account and holds the recipient."),
      mode: modeOut(),
      credentialSource: credentialSourceOut(),
      providerReference: nullableStr("The provider's recipient id (e.g. a transfer recipient code), or null."),
      created: timestamp(
        "When the recipient was first registered (RFC 3339); verifying the same account again returns the same recipient.",
      ),
      verified: timestamp("When the provider last resolved the account (RFC 3339): this call."),
    },
    [],
    { description: "The verified account, registered as a payout recipient." },
  );
}

export const abilities = [
  {
    id: "payout.balance",
    summary: "Get the balances per settlement account and currency, and which account payouts are sent from.",
    inputSource: "ours",
    input: object({ currency: currency("Only this currency (ISO 4217, upper case). Omit for every currency held.") }),
    output: fields(
      {
        balances: list(
          "One entry per settlement account and currency held (only `currency` when given), ordered by account then currency. The account payouts are sent from is listed in every currency shown (zeros when it holds none); a `currency` never held is such an entry of zeros.",
          fields(
            {
              settlement: fields(
                {
                  id: str(
                    "Settlement account: `sandbox` (sandbox money, pays sandbox payouts only), `<provider>:platform` (the platform's provider account), `<provider>:tenant` (the tenant's own provider account, by its own key), `<provider>:<account id>` (the tenant's connected account `acct_…`, or the account a payment's recipientId routed funds to), `sandbox:<recipientId>`.",
                  ),
                  holder: enumOf("Who holds the money: the platform, or the tenant (its own account).", [
                    "platform",
                    "tenant",
                  ]),
                },
                [],
                { description: "Where this money is: payments are booked in the account their funds settled in." },
              ),
              payoutSource: bool(
                "Whether payouts are sent from this account now (the payout provider's account with the credential in use). Payouts spend only this account's `available`; money in other accounts cannot be paid out through it.",
              ),
              currency: str("ISO 4217 currency code.", { pattern: "^[A-Z]{3}$" }),
              available: moneyOut("Payable now from this account: a payout beyond it is refused."),
              pending: moneyOut("Received but not yet settled by the provider; becomes available later."),
              reserved: moneyOut("Held by payouts that are pending or processing."),
              provider: nullable(
                moneyOut("Provider balance."),
                "The provider's own available balance of the account payouts are sent from, when the payout provider is live; null in sandbox mode and for other accounts.",
              ),
              reconciled: nullable(
                bool("Agreement."),
                "Whether the ledger's available balance equals the provider's; null when `provider` is null.",
              ),
            },
            [],
            {
              description:
                "The balance of one currency in one settlement account, computed from the double-entry ledger.",
            },
          ),
        ),
        mode: modeOut(),
        credentialSource: credentialSourceOut(),
        asOf: timestamp("When the balance was computed (RFC 3339)."),
      },
      [],
      { description: "Balances per settlement account and currency." },
    ),
    example: { currency: "NGN" },
  },
  {
    id: "payout.batch",
    summary: "Send up to 500 payouts in one batch; each item succeeds or fails on its own.",
    inputSource: "ours",
    input: object(
      {
        items: array(
          "The payouts in the batch.",
          object(
            {
              recipientId: id("Verified recipient from payout.verify_account."),
              amount: amount(),
              currency: currency(),
              description: line("Narration shown to the recipient.", 140),
              reference: text("Your reference for this item, unique within the batch; echoed in results.", 64),
            },
            ["recipientId", "amount", "currency"],
            { description: "One payout." },
          ),
          500,
          1,
        ),
        description: line('What the batch is for (e.g. "May commissions").', 140),
        idempotencyKey: payoutIdempotencyKey(),
      },
      ["items", "idempotencyKey"],
    ),
    output: batch(
      "The batch: every item was validated before any was sent; each item then succeeds or fails on its own.",
    ),
    example: {
      items: [
        { recipientId: "rcp_01J9Z6A", amount: 15000, currency: "NGN", reference: "comm-may-ada" },
        { recipientId: "rcp_01J9Z6B", amount: 22500, currency: "NGN", reference: "comm-may-tunde" },
      ],
      description: "May commissions",
      idempotencyKey: "payout-batch-2026-05",
    },
  },
  {
    id: "payout.list",
    summary: "List the tenant's payouts, newest first, with filters.",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only payouts in this status.", PAYOUT_STATUSES),
      batchId: id("Only payouts of this batch."),
      recipientId: id("Only payouts to this recipient."),
      vertical: id(
        "Only payouts of this vertical: filters by the record's vertical (the context.verticalId it was made with).",
      ),
      createdAfter: dateTime("Only payouts created at or after this time (RFC 3339)."),
      createdBefore: dateTime("Only payouts created before this time (RFC 3339)."),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Payouts (including batch items), newest first.", payout()),
    example: { status: "failed", limit: 20 },
  },
  {
    id: "payout.send",
    summary: "Send one payout to a verified recipient.",
    inputSource: "ours",
    input: object(
      {
        recipientId: id("Verified recipient from payout.verify_account."),
        amount: amount(),
        currency: currency(),
        description: line("Narration shown to the recipient.", 140),
        metadata: metadata("Your key-value data, returned with the payout."),
        idempotencyKey: payoutIdempotencyKey(),
      },
      ["recipientId", "amount", "currency", "idempotencyKey"],
    ),
    output: payout("The payout: `pending` or `processing` until the provider reports it paid or failed."),
    example: {
      recipientId: "rcp_01J9Z6A",
      amount: 15000,
      currency: "NGN",
      description: "Refund for order 1042",
      idempotencyKey: "refund-order-1042",
    },
  },
  {
    id: "payout.status",
    summary: "Get one payout or payout batch and its current status.",
    inputSource: "ours",
    input: object({ id: id("A payout id (from payout.send or a batch item) or a batch id (from payout.batch).") }, [
      "id",
    ]),
    output: union(
      [payout("A payout (the id was `po_…`).", "payout"), batch("A batch (the id was `pob_…`).", "batch")],
      {
        description:
          "The payout or batch named by `id`, refreshed from the provider; tell them apart by the id prefix (`po_` or `pob_`) or by `items`.",
      },
    ),
    example: { id: "po_01J9Z7C8D9E0F1G2H3J4K5M6N7" },
  },
  {
    id: "payout.verify_account",
    summary:
      "Verify a bank account with the provider, return the holder's name, and register it as a payout recipient.",
    inputSource: "ours",
    input: object(
      {
        country: text("Country of the bank, ISO 3166-1 alpha-2 (e.g. NG, GB, DE).", 2, {
          min: 2,
          pattern: "^[A-Z]{2}$",
        }),
        currency: currency("Currency the account receives (ISO 4217)."),
        accountNumber: text("Account number or IBAN, without spaces.", 34, { min: 4, pattern: "^[A-Za-z0-9]+$" }),
        bankCode: text("Bank, sort or routing code where the country's scheme uses one; omit for IBANs.", 32, {
          pattern: "^[A-Za-z0-9-]+$",
        }),
        accountName: line("Expected holder name; the result says whether the bank's name matches.", 200),
      },
      ["country", "currency", "accountNumber"],
    ),
    output: recipient(),
    example: { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058", accountName: "Ada Obi" },
  },
] as const satisfies readonly AbilityEntry[];
