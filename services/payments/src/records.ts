/**
 * @module payments/records
 * Rows → the catalogue's result shapes (payment, payout, batch, recipient). Money leaves as
 * `{amount, currency, minor}` built from the stored minor units.
 */
import { GantryError } from "@gantry/kit";
import type { OutputOf } from "@gantry/proto/catalogue";
import type { Payment, PaymentEvent, Payout, PayoutBatch, Recipient } from "./db.ts";
import { moneyOut } from "@gantry/kit/money.ts";
import { batchStatus } from "./states.ts";

export type PaymentOut = OutputOf<"payment.initiate">;
export type PayoutOut = OutputOf<"payout.send">;
export type RecipientOut = OutputOf<"payout.verify_account">;
export type BatchOut = OutputOf<"payout.batch">;

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function paymentOut(p: Payment): PaymentOut {
  return {
    id: p.id,
    tenant: p.tenant,
    status: p.status as PaymentOut["status"],
    amount: moneyOut(p.amountMinor, p.currency),
    applicationFee: p.feeMinor === null ? null : moneyOut(p.feeMinor, p.currency),
    provider: p.provider as PaymentOut["provider"],
    mode: p.mode as PaymentOut["mode"],
    credentialSource: p.credentialSource as PaymentOut["credentialSource"],
    checkoutUrl: p.checkoutUrl,
    providerReference: p.providerReference,
    description: p.description,
    customerEmail: p.customerEmail,
    callbackUrl: p.callbackUrl,
    recipientId: p.recipientId,
    contactId: p.contactId,
    leadId: p.leadId,
    vertical: p.vertical,
    failureCode: p.failureCode,
    failureMessage: p.failureMessage,
    requestId: p.requestId,
    created: p.createdAt.toISOString(),
    updated: p.updatedAt.toISOString(),
    expires: iso(p.expiresAt),
    succeeded: iso(p.succeededAt),
    refunded: iso(p.refundedAt),
  };
}

export function historyOut(e: PaymentEvent) {
  return {
    from: e.fromStatus as PaymentOut["status"] | null,
    to: e.toStatus as PaymentOut["status"],
    source: e.source as "api" | "webhook" | "poll",
    providerEventId: e.providerEventId,
    at: e.at.toISOString(),
  };
}

export function payoutOut(p: Payout): PayoutOut {
  return {
    id: p.id,
    tenant: p.tenant,
    batchId: p.batchId,
    recipientId: p.recipientId,
    destination: {
      accountName: p.accountName,
      accountNumberLast4: p.accountNumberLast4,
      bankCode: p.bankCode,
      bankName: p.bankName,
      country: p.country,
    },
    amount: moneyOut(p.amountMinor, p.currency),
    fee: p.feeMinor === null ? null : moneyOut(p.feeMinor, p.currency),
    status: p.status as PayoutOut["status"],
    provider: p.provider as PayoutOut["provider"],
    mode: p.mode as PayoutOut["mode"],
    credentialSource: p.credentialSource as PayoutOut["credentialSource"],
    description: p.description,
    reference: p.reference,
    idempotencyKey: p.idempotencyKey,
    metadata: (p.metadata ?? {}) as PayoutOut["metadata"],
    vertical: p.vertical,
    providerReference: p.providerReference,
    failureCode: p.failureCode,
    failureMessage: p.failureMessage,
    requestId: p.requestId,
    created: p.createdAt.toISOString(),
    updated: p.updatedAt.toISOString(),
    paid: iso(p.paidAt),
  };
}

export function batchOut(b: PayoutBatch, items: Payout[]): BatchOut {
  const count = (s: string) => items.filter((i) => i.status === s).length;
  const totals = new Map<string, bigint>();
  for (const i of items) totals.set(i.currency, (totals.get(i.currency) ?? 0n) + i.amountMinor);
  return {
    id: b.id,
    tenant: b.tenant,
    status: batchStatus(items.map((i) => i.status)) as BatchOut["status"],
    description: b.description,
    idempotencyKey: b.idempotencyKey,
    mode: b.mode as BatchOut["mode"],
    credentialSource: b.credentialSource as BatchOut["credentialSource"],
    vertical: b.vertical,
    counts: {
      total: items.length,
      pending: count("pending"),
      processing: count("processing"),
      paid: count("paid"),
      failed: count("failed"),
      cancelled: count("cancelled"),
      reversed: count("reversed"),
    },
    totals: [...totals.keys()].sort().map((c) => moneyOut(totals.get(c) ?? 0n, c)),
    items: items.map(payoutOut),
    requestId: b.requestId,
    created: b.createdAt.toISOString(),
    updated: b.updatedAt.toISOString(),
    completed: iso(b.completedAt),
  };
}

export function recipientOut(r: Recipient, givenName: string | null, nameConfirmed: boolean): RecipientOut {
  return {
    id: r.id,
    tenant: r.tenant,
    accountName: r.accountName,
    nameMatch: givenName && nameConfirmed ? compareNames(givenName, r.accountName) : null,
    accountNumberLast4: r.accountNumberLast4,
    bankCode: r.bankCode,
    bankName: r.bankName,
    country: r.country,
    currency: r.currency,
    provider: r.provider as RecipientOut["provider"],
    mode: r.mode as RecipientOut["mode"],
    credentialSource: r.credentialSource as RecipientOut["credentialSource"],
    providerReference: r.providerReference,
    created: r.createdAt.toISOString(),
    verified: r.verifiedAt.toISOString(),
  };
}

function words(name: string): string[] {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .sort();
}

/** Case, spacing, accents and word order ignored: all words agree, some agree, or none. */
export function compareNames(given: string, bank: string): "match" | "partial" | "mismatch" {
  const a = words(given);
  const b = words(bank);
  if (a.length && a.join(" ") === b.join(" ")) return "match";
  return a.some((w) => b.includes(w)) ? "partial" : "mismatch";
}

export function unknownRecipient(path: string, id: string): GantryError {
  return new GantryError(
    "not_found",
    `${path} ${id} is not a recipient of this tenant; verify the account with payout.verify_account first.`,
    {
      details: [{ path, message: `${path} names no verified recipient of this tenant`, code: "record_not_found" }],
    },
  );
}

export function currencyMismatch(path: string, given: string, expected: string): GantryError {
  return new GantryError(
    "validation_failed",
    `${path} is ${given} but the recipient receives ${expected}; send ${expected} or verify an account in ${given}.`,
    {
      details: [{ path, message: `${path} must be the recipient's currency ${expected}`, code: "recipient_currency" }],
    },
  );
}
