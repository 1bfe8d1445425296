/**
 * @module payments/payment-writes
 * payment.initiate's writes as single prepared statements on the tenant-scoped pool (kit
 * `runPrepared` / `idempotentInsert`), not Prisma interactive transactions: at a payment per call
 * the transaction's round trips and Prisma's per-query work were most of the service's CPU. Row-level
 * security holds them to the call's tenant as it holds Prisma's queries.
 */
import type { Payment } from "./db.ts";
import { PAYMENT_COLUMNS, type PaymentRow, asPayment } from "./columns.ts";
import { runPrepared } from "@gantry/kit";
import { type ArrayColumn, acceptedTogether, claimsCtes, claimsValues } from "./accepted-together.ts";
import type pg from "pg";
import type { PaymentState } from "./providers/types.ts";

/**
 * The new payment, `pending`, and its first history row in one statement, so neither exists
 * without the other, for `idempotentInsert` with `claimFirst` (written only from the kit's CTE
 * `claim`: nothing when the key was taken); with its checkout when the provider made it in
 * process (the sandbox). It returns the id only: the row is `p` as given (no column has a default
 * or a trigger), and returning its 28 columns to be parsed (dates included) cost this service and
 * Postgres about 0.1 ms each per payment (scripts/cost-per-call.ts, alternating runs).
 */
export function insertPayment(p: Payment) {
  return {
    name: "payments.insert_payment",
    text: `WITH payment AS (
             INSERT INTO payments.payments (id, tenant, status, amount_minor, currency, provider, mode, credential_source,
               description, customer_email, callback_url, recipient_id, settlement_account, provider_account, contact_id,
               lead_id, vertical, request_id, created_at, updated_at, provider_reference, checkout_url, expires_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20, $21, $22
               FROM claim
             RETURNING id, tenant, status, created_at),
           history AS (
             INSERT INTO payments.payment_events (tenant, payment_id, from_status, to_status, source, at)
             SELECT tenant, id, NULL, status, 'api', created_at FROM payment)
           SELECT id FROM payment`,
    values: [
      p.id,
      p.tenant,
      p.status,
      p.amountMinor,
      p.currency,
      p.provider,
      p.mode,
      p.credentialSource,
      p.description,
      p.customerEmail,
      p.callbackUrl,
      p.recipientId,
      p.settlementAccount,
      p.providerAccount,
      p.contactId,
      p.leadId,
      p.vertical,
      p.requestId,
      p.createdAt,
      p.providerReference,
      p.checkoutUrl,
      p.expiresAt,
    ],
  };
}

/** The accepting statements of payments that arrive together, as one statement (src/accepted-together.ts). */
export function paymentClaims(inFlight: number) {
  return acceptedTogether({
    inFlight,
    name: "payments.insert_payments",
    text: INSERT_PAYMENTS,
    values: (sorted) => claimsValues(PAYMENT_ARRAYS, sorted),
  });
}

/** `insertPayment`'s values (1-based) that become one array each in `INSERT_PAYMENTS`; the key's (23–28) are `claimsCtes`'s. */
const PAYMENT_ARRAYS: ArrayColumn[] = [
  [1, "id", "text"],
  [2, "tenant", "text"],
  [3, "status", "text"],
  [4, "amount_minor", "bigint"],
  [5, "currency", "text"],
  [6, "provider", "text"],
  [7, "mode", "text"],
  [8, "credential_source", "text"],
  [9, "description", "text"],
  [10, "customer_email", "text"],
  [11, "callback_url", "text"],
  [12, "recipient_id", "text"],
  [13, "settlement_account", "text"],
  [14, "provider_account", "text"],
  [15, "contact_id", "text"],
  [16, "lead_id", "text"],
  [17, "vertical", "text"],
  [18, "request_id", "text"],
  [19, "created_at", "timestamptz"],
  [20, "provider_reference", "text"],
  [21, "checkout_url", "text"],
  [22, "expires_at", "timestamptz"],
];

/** `insertPayment`'s statement for several payments, over their arrays; sorted by key as `payoutClaims`'s. */
const INSERT_PAYMENTS = `WITH ${claimsCtes(PAYMENT_ARRAYS).text},
     payment AS (
       INSERT INTO payments.payments (id, tenant, status, amount_minor, currency, provider, mode, credential_source,
         description, customer_email, callback_url, recipient_id, settlement_account, provider_account, contact_id,
         lead_id, vertical, request_id, created_at, updated_at, provider_reference, checkout_url, expires_at)
       SELECT v.id, v.tenant, v.status, v.amount_minor, v.currency, v.provider, v.mode, v.credential_source,
              v.description, v.customer_email, v.callback_url, v.recipient_id, v.settlement_account, v.provider_account,
              v.contact_id, v.lead_id, v.vertical, v.request_id, v.created_at, v.created_at, v.provider_reference,
              v.checkout_url, v.expires_at
         FROM v JOIN claim ON claim.record_id = v.id
       RETURNING id, tenant, status, created_at),
     history AS (
       INSERT INTO payments.payment_events (tenant, payment_id, from_status, to_status, source, at)
       SELECT tenant, id, NULL, status, 'api', created_at FROM payment)
     SELECT id FROM payment`;

/**
 * What the provider answered at creation while the payment stays where it is (no move: no history,
 * ledger or event): its reference, checkout URL and fee are set once (a webhook may have set them
 * first), the expiry whenever the provider gives one. One statement, so it needs no row lock of its
 * own; a status move goes through `advancePayment` instead.
 */
export async function recordCheckout(pool: pg.Pool, id: string, state: PaymentState): Promise<Payment> {
  const [row] = await runPrepared<PaymentRow>(
    pool,
    "payments.record_checkout",
    `UPDATE payments.payments SET provider_reference = COALESCE(provider_reference, $2),
       checkout_url = COALESCE(checkout_url, $3), fee_minor = COALESCE(fee_minor, $4),
       expires_at = COALESCE($5, expires_at)
     WHERE id = $1 RETURNING ${PAYMENT_COLUMNS}`,
    [
      id,
      state.providerReference ?? null,
      state.checkoutUrl ?? null,
      state.applicationFeeMinor ?? null,
      state.expiresAt ?? null,
    ],
  );
  if (!row) throw new Error(`payment ${id} vanished after its creation`);
  return asPayment(row);
}

/** A payment as stored (a replay's answer). */
export async function paymentById(pool: pg.Pool, id: string): Promise<Payment> {
  const [row] = await runPrepared<PaymentRow>(
    pool,
    "payments.payment_by_id",
    `SELECT ${PAYMENT_COLUMNS} FROM payments.payments WHERE id = $1`,
    [id],
  );
  if (!row) throw new Error(`payment ${id} not found`);
  return asPayment(row);
}
