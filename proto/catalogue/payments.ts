/**
 * @module catalogue/payments
 * Payments in and payouts out, owned by the payments service (spec §4.3 payment.initiate; the rest
 * of the shapes are ours). Money inputs are major units + ISO 4217 code; the service stores integer
 * minor units and checks the amount's precision against the currency.
 */
import type { AbilityEntry } from "./types.ts";
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
  object,
  oneOfValues,
  text,
  url,
} from "./schema.ts";

/** Payment providers under their neutral names (spec §4.3 payment.initiate). */
export const PAYMENT_PROVIDERS = ["provider_a", "provider_b"] as const;

/** Payment statuses (ours; the spec does not show them). */
export const PAYMENT_STATUSES = ["pending", "succeeded", "failed", "cancelled", "expired", "refunded"] as const;

/** Payout statuses (ours; the spec does not show them). */
export const PAYOUT_STATUSES = ["pending", "processing", "paid", "failed", "cancelled", "reversed"] as const;

function payoutIdempotencyKey() {
  return text(
    "Required: your unique reference for this payout. Reusing it with the same input returns the first result instead of paying again; reusing it with different input is refused (409).",
    255,
  );
}

export const abilities = [
  {
    id: "payment.initiate",
    summary:
      "Initiate a payment, invoice or charge through provider_a (payment link) or provider_b (checkout split charge).",
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
        recipientId: id("Recipient (collections sub-account) the funds are routed to."),
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
      createdAfter: dateTime("Only payments created at or after this time (RFC 3339)."),
      createdBefore: dateTime("Only payments created before this time (RFC 3339)."),
      limit: limit(),
      cursor: cursor(),
    }),
    example: { status: "succeeded", createdAfter: "2026-05-01T00:00:00Z", limit: 50 },
  },
  {
    id: "payment.status",
    summary: "Get one payment and its current status, refreshed from the provider.",
    inputSource: "ours",
    input: object({ id: id("Payment id returned by payment.initiate.") }, ["id"]),
    example: { id: "pay_01J9Z5M3N4P5Q6R7S8T9V0W1X2" },
  },
  {
    id: "payout.balance",
    summary: "Get the balance available for payouts, per currency.",
    inputSource: "ours",
    input: object({ currency: currency("Only this currency (ISO 4217, upper case). Omit for every currency held.") }),
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
      createdAfter: dateTime("Only payouts created at or after this time (RFC 3339)."),
      createdBefore: dateTime("Only payouts created before this time (RFC 3339)."),
      limit: limit(),
      cursor: cursor(),
    }),
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
    example: { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058", accountName: "Ada Obi" },
  },
] as const satisfies readonly AbilityEntry[];
