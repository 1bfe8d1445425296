/**
 * @module catalogue/payments/payment
 * The payments service's abilities of the `payment` area (Payments: payments, invoices and charges).
 * `proto/catalogue/payments.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { enumOf, fields, list, nullableStr, nullableTimestamp, page, str, timestamp } from "../output.ts";
import {
  amount,
  currency,
  cursor,
  dateTime,
  email,
  id,
  idempotencyKey,
  limit,
  line,
  nullable,
  object,
  oneOfValues,
  url,
} from "../schema.ts";
import {
  PAYMENT_PROVIDERS,
  recordVertical,
  prefixedId,
  moneyOut,
  modeOut,
  credentialSourceOut,
  providerOut,
  failureProps,
} from "./shared.ts";

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

/**
 * Payment statuses as results show them (issue 15): pending → processing → succeeded | failed |
 * cancelled | expired; succeeded → refunded. A status only moves forward; webhooks and polling
 * converge on it.
 */
export const PAYMENT_RESULT_STATUSES = PAYMENT_STATUSES;

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
] as const satisfies readonly AbilityEntry[];
