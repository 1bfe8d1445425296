/**
 * @module catalogue/payments
 * Payments in and payouts out, owned by the payments service (spec §4.3 payment.initiate; the rest
 * of the shapes are ours). Money inputs are major units + ISO 4217 code; the service stores integer
 * minor units and checks the amount's precision against the currency. Money in results is
 * `{amount, currency, minor}`: `minor` (integer minor units) is the exact value, `amount` the same in
 * major units for display (the shape workspace uses for a lead's value).
 */
import type { AbilityEntry } from "./types.ts";
import {
  bool,
  enumOf,
  fields,
  int,
  list,
  metadataOut,
  nullableStr,
  nullableTimestamp,
  num,
  page,
  str,
  timestamp,
} from "./output.ts";
import {
  amount,
  array,
  currency,
  cursor,
  dateTime,
  email,
  id,
  idempotencyKey,
  limit,
  line,
  metadata,
  nullable,
  object,
  oneOfValues,
  text,
  union,
  url,
} from "./schema.ts";

/** Payment providers under their neutral names (spec §4.3 payment.initiate). */
export const PAYMENT_PROVIDERS = ["provider_a", "provider_b"] as const;

/** Payment statuses (ours; the spec does not show them): see PAYMENT_RESULT_STATUSES for the machine. */
export const PAYMENT_STATUSES = [
  "pending",
  "processing",
  "succeeded",
  "failed",
  "cancelled",
  "expired",
  "refunded",
] as const;

/** Payout statuses (ours; the spec does not show them). */
export const PAYOUT_STATUSES = ["pending", "processing", "paid", "failed", "cancelled", "reversed"] as const;

function payoutIdempotencyKey() {
  return text(
    "Required: your unique reference for this payout. Reusing it with the same input returns the first result instead of paying again; reusing it with different input is refused (409).",
    255,
  );
}

// ---- Results ----------------------------------------------------------------------------------

/** A record's vertical: the call's context.verticalId when it was made (issue 32 item 7). */
function recordVertical(what: string) {
  return nullableStr(`Vertical the ${what} belongs to (from the call's context.verticalId), or null.`);
}

/**
 * Payment statuses as results show them (issue 15): pending → processing → succeeded | failed |
 * cancelled | expired; succeeded → refunded. A status only moves forward; webhooks and polling
 * converge on it.
 */
export const PAYMENT_RESULT_STATUSES = PAYMENT_STATUSES;

/** Batch statuses: pending → processing → completed | partially_failed | failed. */
export const PAYOUT_BATCH_STATUSES = ["pending", "processing", "completed", "partially_failed", "failed"] as const;

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

/** Money in a result: integer minor units (exact) plus the same amount in major units, and the currency. */
function moneyOut(description: string) {
  return fields(
    {
      amount: num(
        "Amount in major units of `currency` (e.g. 49.99), equal to `minor` / 10^exponent; for display — compute with `minor`.",
      ),
      currency: str("ISO 4217 currency code, upper case.", { pattern: "^[A-Z]{3}$" }),
      minor: int(
        "Amount in integer minor units of `currency` (cents for USD, yen for JPY, fils for KWD): the exact value.",
      ),
    },
    [],
    { description },
  );
}

function modeOut() {
  return enumOf(
    "`sandbox`: the built-in deterministic sandbox provider handled it (no money moved; documented magic amounts and accounts fail on purpose); `live`: a real provider account did.",
    ["sandbox", "live"],
  );
}

function credentialSourceOut() {
  return enumOf(
    "Whose provider account was used: `tenant` (the tenant's connection) or `platform` (the platform account: the tenant has no usable connection).",
    ["tenant", "platform"],
  );
}

function providerOut(description: string) {
  return enumOf(description, PAYMENT_PROVIDERS);
}

function failureProps() {
  return {
    failureCode: nullableStr(
      "Machine-readable reason of a failure as the provider reported it, normalised to snake_case (e.g. `card_declined`, `account_closed`); null unless failed.",
    ),
    failureMessage: nullableStr("Human-readable reason of a failure; null unless failed."),
  };
}

/** Properties of a payment record. */
function paymentProps() {
  return {
    id: prefixedId("pay", "Payment id (`pay_…`)."),
    tenant: str("Tenant the payment belongs to."),
    status: enumOf(
      "pending: waiting for the payer; processing: paid, the provider is confirming; succeeded, failed, cancelled, expired: final; refunded: refunded after succeeding.",
      PAYMENT_RESULT_STATUSES,
    ),
    amount: moneyOut("Amount charged to the payer."),
    applicationFee: nullable(
      moneyOut("Fee."),
      "Platform fee taken from a provider_a direct charge on the tenant's connected account; null when none applies.",
    ),
    provider: providerOut("Provider that handles the payment (neutral names, spec §4.3)."),
    mode: modeOut(),
    credentialSource: credentialSourceOut(),
    checkoutUrl: nullableStr(
      "Where the payer pays: the payment link (provider_a) or checkout page (provider_b). Null when the provider gave none.",
    ),
    providerReference: nullableStr(
      "The provider's own id of the payment (payment link, checkout session or transaction reference), or null.",
    ),
    description: nullableStr("What the payment is for, as given; null if none."),
    customerEmail: nullableStr("Payer's email, as given; null if none."),
    callbackUrl: nullableStr("Callback URL, as given; null if none."),
    recipientId: nullableStr(
      "The tenant's own account (connected account or collections subaccount) the funds were routed to; null if none.",
    ),
    contactId: nullableStr("Contact the payment belongs to, as given; null if none."),
    leadId: nullableStr("Lead the payment belongs to, as given; null if none."),
    vertical: recordVertical("payment"),
    ...failureProps(),
    requestId: str(
      "Request id (`req_…`) of the payment.initiate call that created it: a receipt trust claims can cite.",
    ),
    created: timestamp("When the payment was initiated (RFC 3339)."),
    updated: timestamp("Last status change (RFC 3339)."),
    expires: nullableTimestamp("When an unpaid link or checkout expires (RFC 3339); null when it does not expire."),
    succeeded: nullableTimestamp("When the payment succeeded (RFC 3339); null unless it did."),
    refunded: nullableTimestamp("When it was refunded (RFC 3339); null unless refunded."),
  };
}

function payment(description = "A payment.") {
  return fields(paymentProps(), [], { description });
}

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
    id: "payment.initiate",
    summary:
      "Initiate a payment, invoice or charge through provider_a (payment link) or provider_b (checkout split charge); the built-in sandbox stands in for a provider that is not configured.",
    inputSource: "spec",
    input: object(
      {
        amount: amount(),
        currency: currency(),
        provider: oneOfValues(
          "provider_a (default): payment link, a direct charge with application fee when the tenant is connected. provider_b: checkout split charge on the platform account routed to the tenant's collections sub-account; requires customerEmail.",
          PAYMENT_PROVIDERS,
          "provider_a",
        ),
        customerEmail: email("Payer's email address. Required when provider is provider_b."),
        callbackUrl: url("URL the provider redirects to (or notifies) when the payment completes."),
        recipientId: id(
          "Account the funds are routed to: it must be the account of the tenant's own connection for the provider (provider_a connected account `acct_…`, provider_b subaccount `ACCT_…`); any other is refused (404). The payment's money is then booked in that account, not in the platform-held balance payouts are sent from.",
        ),
        description: line("What the payment is for; shown to the payer.", 500),
        contactId: id("Contact (from contact.create) the payment belongs to."),
        leadId: id("Lead (from lead.create) the payment belongs to."),
        idempotencyKey: idempotencyKey("the payment"),
      },
      ["amount", "currency"],
      {
        if: { properties: { provider: { const: "provider_b" } }, required: ["provider"] },
        then: { properties: { customerEmail: true }, required: ["customerEmail"] },
      },
    ),
    output: payment("The payment, `pending` until the payer pays; send the payer to `checkoutUrl`."),
    example: {
      amount: 49.99,
      currency: "USD",
      provider: "provider_a",
      description: "Invoice INV-2026-0042: website care plan, May",
      customerEmail: "billing@northwind.example",
      callbackUrl: "https://app.example.com/payments/callback",
      idempotencyKey: "inv-2026-0042",
    },
  },
  {
    id: "payment.list",
    summary: "List the tenant's payments, newest first, with filters.",
    inputSource: "ours",
    input: object({
      status: oneOfValues("Only payments in this status.", PAYMENT_STATUSES),
      provider: oneOfValues("Only payments through this provider.", PAYMENT_PROVIDERS),
      contactId: id("Only payments of this contact."),
      leadId: id("Only payments of this lead."),
      vertical: id(
        "Only payments of this vertical: filters by the record's vertical (the context.verticalId it was made with).",
      ),
      createdAfter: dateTime("Only payments created at or after this time (RFC 3339)."),
      createdBefore: dateTime("Only payments created before this time (RFC 3339)."),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Payments, newest first.", payment()),
    example: { status: "succeeded", createdAfter: "2026-05-01T00:00:00Z", limit: 50 },
  },
  {
    id: "payment.status",
    summary: "Get one payment and its current status, refreshed from the provider.",
    inputSource: "ours",
    input: object({ id: id("Payment id returned by payment.initiate.") }, ["id"]),
    output: fields(
      {
        ...paymentProps(),
        history: list(
          "Status changes, oldest first.",
          fields(
            {
              from: nullable(enumOf("Status.", PAYMENT_RESULT_STATUSES), "Status before; null for the creation."),
              to: enumOf("Status after.", PAYMENT_RESULT_STATUSES),
              source: enumOf(
                "What moved it: `api` (Gantry, e.g. creation), `webhook` (a verified provider event) or `poll` (a status refresh).",
                ["api", "webhook", "poll"],
              ),
              providerEventId: nullableStr("The provider's event id for `webhook` changes; null otherwise."),
              at: timestamp("When the change was recorded (RFC 3339)."),
            },
            [],
            { description: "One status change." },
          ),
        ),
      },
      [],
      { description: "The payment, refreshed from the provider, with its status history." },
    ),
    example: { id: "pay_01J9Z5M3N4P5Q6R7S8T9V0W1X2" },
  },
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
