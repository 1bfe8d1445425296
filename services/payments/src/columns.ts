/**
 * @module payments/columns
 * The payment, payout and recipient rows as the hot paths read them with raw SQL (src/payment-writes.ts,
 * src/payout-writes.ts): every column aliased to its Prisma field name, so a row feeds the same
 * mappers (src/records.ts) as a Prisma read. pg returns BIGINT as text (it may exceed a JS number),
 * so the minor-unit columns are turned into the bigints Prisma would give.
 */
import type { Payment, Payout } from "./db.ts";

/** `RETURNING`/`SELECT` list of a payments row. */
export const PAYMENT_COLUMNS = `id, tenant, status, amount_minor AS "amountMinor", currency, fee_minor AS "feeMinor",
  provider, mode, credential_source AS "credentialSource", checkout_url AS "checkoutUrl",
  provider_reference AS "providerReference", description, customer_email AS "customerEmail",
  callback_url AS "callbackUrl", recipient_id AS "recipientId", settlement_account AS "settlementAccount",
  provider_account AS "providerAccount", contact_id AS "contactId", lead_id AS "leadId", vertical,
  failure_code AS "failureCode", failure_message AS "failureMessage", request_id AS "requestId",
  created_at AS "createdAt", updated_at AS "updatedAt", expires_at AS "expiresAt",
  succeeded_at AS "succeededAt", refunded_at AS "refundedAt"`;

/** `RETURNING`/`SELECT` list of a payouts row. */
export const PAYOUT_COLUMNS = `id, tenant, batch_id AS "batchId", position, recipient_id AS "recipientId",
  account_name AS "accountName", account_number_last4 AS "accountNumberLast4", bank_code AS "bankCode",
  bank_name AS "bankName", country, amount_minor AS "amountMinor", currency, fee_minor AS "feeMinor", status,
  provider, mode, credential_source AS "credentialSource", settlement_account AS "settlementAccount",
  provider_account AS "providerAccount", description, reference, idempotency_key AS "idempotencyKey", metadata,
  vertical, provider_reference AS "providerReference", failure_code AS "failureCode",
  failure_message AS "failureMessage", request_id AS "requestId", created_at AS "createdAt",
  updated_at AS "updatedAt", paid_at AS "paidAt"`;

/** `SELECT` list of a recipients row (no BIGINT: a row is a `Recipient` as it is). */
export const RECIPIENT_COLUMNS = `id, tenant, provider, mode, credential_source AS "credentialSource",
  account_fingerprint AS "accountFingerprint", account_name AS "accountName",
  account_number_last4 AS "accountNumberLast4", bank_code AS "bankCode", bank_name AS "bankName", country, currency,
  provider_reference AS "providerReference", created_at AS "createdAt", verified_at AS "verifiedAt"`;

type Minor<T> = Omit<T, "amountMinor" | "feeMinor"> & { amountMinor: string; feeMinor: string | null };

/** A row selected with PAYMENT_COLUMNS. */
export type PaymentRow = Minor<Payment>;
/** A row selected with PAYOUT_COLUMNS. */
export type PayoutRow = Minor<Payout>;

export function asPayment(row: PaymentRow): Payment {
  return {
    ...row,
    amountMinor: BigInt(row.amountMinor),
    feeMinor: row.feeMinor === null ? null : BigInt(row.feeMinor),
  };
}

export function asPayout(row: PayoutRow): Payout {
  return {
    ...row,
    amountMinor: BigInt(row.amountMinor),
    feeMinor: row.feeMinor === null ? null : BigInt(row.feeMinor),
  };
}
