/**
 * @module payments/payout-writes
 * The payout hot path's statements, prepared on the tenant-scoped pool or a client of it (kit
 * `runPrepared`), instead of Prisma: reading the recipient, accepting a payout (balance check,
 * reservation, record), and reading / locking / updating one while it moves (src/payouts.ts
 * `advancePayout`).
 */
import { runPrepared } from "@gantry/kit";
import { acceptedTogether, type ArrayColumn, type Claim, claimsCtes, claimsValues } from "./accepted-together.ts";
import type pg from "pg";
import { PAYOUT_COLUMNS, type PayoutRow, RECIPIENT_COLUMNS, asPayout } from "./columns.ts";
import type { Payout, Recipient } from "./db.ts";
import { journalRows } from "./ledger.ts";
import type { OutboxEvent } from "@gantry/kit";

/**
 * One payout accepted in one statement, for `idempotentInsert` with `claimFirst`: the key is claimed
 * first (the kit's CTE `claim`; a taken key writes nothing), then the payout and its journals are
 * written (the reservation, `available` → `reserved`, and when the provider answered in process the
 * move it reported: src/payouts.ts `acceptance`), with that move's event in the kit's outbox table.
 * The balance is checked last, by the ledger's trigger at the end of the statement (migration
 * `20270104000000_balance_row_check`): it adds the lines to the balance row, on the row's newest
 * version, and refuses a reservation beyond what was available before it (see `refusedBalance`), so
 * nothing is written. That row's lock is the only one on the balance, held from the trigger to the
 * commit that ends the statement: payouts of one balance queue for that much only. A concurrent
 * first use of the same key waits on the key and then finds it taken: so a refusal is always this
 * call's own. It returns the id only: the row is `p` as given, as in `insertPayment`.
 *
 * `recipient` may be this process's cached copy (src/recipient-cache.ts), so the payout is written
 * only while the recipient row still holds what it was built from: the fields the payout copies,
 * its provider, mode and currency, the credential source and provider reference the send uses, and
 * `verified_at`, which every verification sets. Otherwise `payments.recipient_changed` raises and
 * nothing of the statement stays, the key's claim included (see `recipientChanged`).
 */
export function acceptPayout(p: Payout, recipient: Recipient, journals: PayoutJournal[], event: OutboxEvent | null) {
  return {
    name: "payments.accept_payout",
    text: ACCEPT_PAYOUT,
    values: [
      p.id,
      p.tenant,
      p.recipientId,
      p.accountName,
      p.accountNumberLast4,
      p.bankCode,
      p.bankName,
      p.country,
      p.amountMinor,
      p.status,
      p.currency,
      p.provider,
      p.mode,
      p.credentialSource,
      p.settlementAccount,
      p.providerAccount,
      p.description,
      p.idempotencyKey,
      JSON.stringify(p.metadata ?? {}),
      p.vertical,
      p.requestId,
      p.createdAt,
      p.updatedAt,
      p.paidAt,
      p.feeMinor,
      p.failureCode,
      p.failureMessage,
      p.providerReference,
      ...bookAndQueueValues(journals, event),
      recipient.credentialSource,
      recipient.providerReference,
      recipient.verifiedAt,
    ],
  };
}

// Built once: the texts are fixed, and building them on every call showed in a payout's profile.
const ACCEPT_PAYOUT = `WITH payout AS (
             INSERT INTO payments.payouts (id, tenant, batch_id, position, recipient_id, account_name, account_number_last4,
               bank_code, bank_name, country, amount_minor, currency, status, provider, mode, credential_source,
               settlement_account, provider_account, description, reference, idempotency_key, metadata, vertical,
               request_id, created_at, updated_at, paid_at, fee_minor, failure_code, failure_message, provider_reference)
             SELECT $1, $2, NULL, 0, $3, $4, $5, $6, $7, $8, $9, $11, $10, $12, $13, $14, $15, $16, $17, NULL, $18,
                    $19::jsonb, $20, $21, $22, $23, $24, $25, $26, $27, $28
               FROM claim
              WHERE CASE WHEN EXISTS (
                      SELECT FROM payments.recipients r
                       WHERE r.id = $3 AND r.tenant = $2 AND r.provider = $12 AND r.mode = $13 AND r.currency = $11
                         AND r.account_name = $4 AND r.account_number_last4 = $5
                         AND r.bank_code IS NOT DISTINCT FROM $6 AND r.bank_name IS NOT DISTINCT FROM $7
                         AND r.country = $8 AND r.credential_source = $37
                         AND r.provider_reference IS NOT DISTINCT FROM $38 AND r.verified_at = $39)
                    THEN true ELSE payments.recipient_changed($3) END
             RETURNING id, tenant, settlement_account AS "settlementAccount", currency, updated_at AS "updatedAt"),
           ${bookAndQueue("payout", 29)}
           SELECT id FROM payout`;

/**
 * The CTEs `booked` and `event` of a statement that writes a payout (the CTE `source`, with at least
 * `id`, `tenant`, `currency`, `settlementAccount` and `updatedAt` named as in `PAYOUT_COLUMNS`): one
 * row a journal (balanced by construction), dated as the payout's update, and the event in the kit's
 * outbox table (kit/src/outbox.ts), none when its subject is null. Parameters from `$first`, in the
 * order of `bookAndQueueValues`. The journals come as arrays of one element a journal, so the plan
 * reads them with one function scan: Postgres sets up every node of a plan again on each execution.
 */
function bookAndQueue(source: string, first: number): string {
  const [suffix, debit, credit, amount, memo, subject, msgId, payload] = Array.from(
    { length: 8 },
    (_, i) => `$${first + i}`,
  );
  return `booked AS (
       INSERT INTO payments.ledger_journals
         (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id,
          memo, created_at)
       SELECT tenant, id || ':' || j.suffix, j.debit, j.credit, "settlementAccount", currency, j.amount,
              'payout', id, j.memo, "updatedAt"
         FROM ${source}
        CROSS JOIN unnest(${suffix}::text[], ${debit}::text[], ${credit}::text[], ${amount}::bigint[], ${memo}::text[])
              AS j(suffix, debit, credit, amount, memo)),
     event AS (
       INSERT INTO payments.outbox (tenant, subject, msg_id, payload)
       SELECT tenant, ${subject}, ${msgId}, ${payload}::jsonb FROM ${source} WHERE ${subject}::text IS NOT NULL)`;
}

/** The parameters of `bookAndQueue`: the journals' rows (src/ledger.ts `journalRows`), then the event's three. */
function bookAndQueueValues(journals: PayoutJournal[], event: OutboxEvent | null): unknown[] {
  return [
    ...journalRows(journals, (j) => j.suffix),
    event?.subject ?? null,
    event?.msgId ?? null,
    event ? JSON.stringify(event.payload) : null,
  ];
}

/**
 * The accepting statements of payouts that arrive together, as one statement (src/accepted-together.ts).
 * The ledger's statement trigger runs once for all their journals.
 */
export function payoutClaims(inFlight: number) {
  return acceptedTogether({
    inFlight,
    name: "payments.accept_payouts",
    text: ACCEPT_PAYOUTS,
    values: acceptPayoutsValues,
  });
}

/**
 * `acceptPayout`'s values (1-based, as its text numbers them) that become one array each in
 * `ACCEPT_PAYOUTS`, with their types; the journals' five arrays (29–33) are joined into one set of
 * arrays with the payout's id beside each journal; the key's (40–45) are `claimsCtes`'s.
 */
const MANY: ArrayColumn[] = [
  [1, "id", "text"],
  [2, "tenant", "text"],
  [3, "recipient_id", "text"],
  [4, "account_name", "text"],
  [5, "account_number_last4", "text"],
  [6, "bank_code", "text"],
  [7, "bank_name", "text"],
  [8, "country", "text"],
  [9, "amount_minor", "bigint"],
  [10, "status", "text"],
  [11, "currency", "text"],
  [12, "provider", "text"],
  [13, "mode", "text"],
  [14, "credential_source", "text"],
  [15, "settlement_account", "text"],
  [16, "provider_account", "text"],
  [17, "description", "text"],
  [18, "idempotency_key", "text"],
  [19, "metadata", "text"],
  [20, "vertical", "text"],
  [21, "request_id", "text"],
  [22, "created_at", "timestamptz"],
  [23, "updated_at", "timestamptz"],
  [24, "paid_at", "timestamptz"],
  [25, "fee_minor", "bigint"],
  [26, "failure_code", "text"],
  [27, "failure_message", "text"],
  [28, "provider_reference", "text"],
  [34, "subject", "text"],
  [35, "msg_id", "text"],
  [36, "payload", "text"],
  [37, "r_credential_source", "text"],
  [38, "r_provider_reference", "text"],
  [39, "r_verified_at", "timestamptz"],
];
const CLAIMS = claimsCtes(MANY);
const JOURNALS = CLAIMS.next;

/**
 * `ACCEPT_PAYOUT` for several payouts: the same CTEs over the payouts' arrays, so each payout is
 * written, checked and refused exactly as alone, and the ledger's statement trigger runs once for
 * all their journals (it sums them per balance row and refuses the batch when their reservations
 * together exceed what was available; then each runs alone). Payouts come sorted by key, so two
 * batches that share keys (concurrent retries) take them in one order.
 */
const ACCEPT_PAYOUTS = `WITH ${CLAIMS.text},
     payout AS (
       INSERT INTO payments.payouts (id, tenant, batch_id, position, recipient_id, account_name, account_number_last4,
         bank_code, bank_name, country, amount_minor, currency, status, provider, mode, credential_source,
         settlement_account, provider_account, description, reference, idempotency_key, metadata, vertical,
         request_id, created_at, updated_at, paid_at, fee_minor, failure_code, failure_message, provider_reference)
       SELECT v.id, v.tenant, NULL, 0, v.recipient_id, v.account_name, v.account_number_last4, v.bank_code, v.bank_name,
              v.country, v.amount_minor, v.currency, v.status, v.provider, v.mode, v.credential_source,
              v.settlement_account, v.provider_account, v.description, NULL, v.idempotency_key, v.metadata::jsonb,
              v.vertical, v.request_id, v.created_at, v.updated_at, v.paid_at, v.fee_minor, v.failure_code,
              v.failure_message, v.provider_reference
         FROM v JOIN claim ON claim.record_id = v.id
        WHERE CASE WHEN EXISTS (
                SELECT FROM payments.recipients r
                 WHERE r.id = v.recipient_id AND r.tenant = v.tenant AND r.provider = v.provider AND r.mode = v.mode
                   AND r.currency = v.currency AND r.account_name = v.account_name
                   AND r.account_number_last4 = v.account_number_last4
                   AND r.bank_code IS NOT DISTINCT FROM v.bank_code AND r.bank_name IS NOT DISTINCT FROM v.bank_name
                   AND r.country = v.country AND r.credential_source = v.r_credential_source
                   AND r.provider_reference IS NOT DISTINCT FROM v.r_provider_reference AND r.verified_at = v.r_verified_at)
              THEN true ELSE payments.recipient_changed(v.recipient_id) END
       RETURNING id, tenant, settlement_account AS "settlementAccount", currency, updated_at AS "updatedAt"),
     booked AS (
       INSERT INTO payments.ledger_journals
         (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id,
          memo, created_at)
       SELECT p.tenant, p.id || ':' || j.suffix, j.debit, j.credit, p."settlementAccount", p.currency, j.amount,
              'payout', p.id, j.memo, p."updatedAt"
         FROM unnest($${JOURNALS}::text[], $${JOURNALS + 1}::text[], $${JOURNALS + 2}::text[], $${JOURNALS + 3}::text[],
                     $${JOURNALS + 4}::bigint[], $${JOURNALS + 5}::text[]) AS j(payout, suffix, debit, credit, amount, memo)
         JOIN payout p ON p.id = j.payout),
     event AS (
       INSERT INTO payments.outbox (tenant, subject, msg_id, payload)
       SELECT p.tenant, v.subject, v.msg_id, v.payload::jsonb FROM payout p JOIN v ON v.id = p.id
        WHERE v.subject IS NOT NULL)
     SELECT id FROM payout`;

/** `ACCEPT_PAYOUTS`'s parameters from the payouts' own, sorted by key. */
function acceptPayoutsValues(sorted: Claim[]): unknown[] {
  const journals: unknown[][] = [[], [], [], [], [], []];
  for (const c of sorted) {
    const [suffixes, debits, credits, amounts, memos] = c.values.slice(28, 33) as unknown[][];
    for (let i = 0; i < suffixes.length; i++) {
      journals[0].push(c.values[0]);
      journals[1].push(suffixes[i]);
      journals[2].push(debits[i]);
      journals[3].push(credits[i]);
      journals[4].push(amounts[i]);
      journals[5].push(memos[i]);
    }
  }
  return [...claimsValues(MANY, sorted), ...journals];
}

/** Whether `err` is `acceptPayout` refusing a recipient row that no longer holds what the payout was built from. */
export function recipientChanged(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === "P0001" && e.message === "recipient_changed";
}

/** What was available when `err` is the ledger's trigger refusing a reservation beyond it; else null. */
export function refusedBalance(err: unknown): bigint | null {
  const e = err as { code?: string; message?: string; detail?: string };
  if (e?.code !== "P0001" || e.message !== "insufficient_balance" || !e.detail) return null;
  return BigInt(e.detail);
}

/** A payout as stored (a replay's answer). */
export async function payoutById(pool: pg.Pool, id: string): Promise<Payout> {
  const [row] = await runPrepared<PayoutRow>(
    pool,
    "payments.payout_by_id",
    `SELECT ${PAYOUT_COLUMNS} FROM payments.payouts WHERE id = $1`,
    [id],
  );
  if (!row) throw new Error(`payout ${id} not found`);
  return asPayout(row);
}

/** A payout's batch, read before any lock: a batch row is locked before its items (src/payouts.ts). */
export async function batchOf(db: pg.ClientBase, id: string): Promise<string | null | undefined> {
  const [row] = await runPrepared<{ batchId: string | null }>(
    db,
    "payments.payout_batch_of",
    `SELECT batch_id AS "batchId" FROM payments.payouts WHERE id = $1`,
    [id],
  );
  return row?.batchId;
}

export async function lockBatch(db: pg.ClientBase, batchId: string): Promise<void> {
  await runPrepared(db, "payments.lock_batch", `SELECT id FROM payments.payout_batches WHERE id = $1 FOR UPDATE`, [
    batchId,
  ]);
}

/** The payout, locked until the transaction ends. */
export async function lockPayout(db: pg.ClientBase, id: string): Promise<Payout> {
  const [row] = await runPrepared<PayoutRow>(
    db,
    "payments.lock_payout",
    `SELECT ${PAYOUT_COLUMNS} FROM payments.payouts WHERE id = $1 FOR UPDATE`,
    [id],
  );
  if (!row) throw new Error(`payout ${id} not found`);
  return asPayout(row);
}

/** The fields a move or a report may set (src/payouts.ts); null leaves a column as it is. */
export interface PayoutPatch {
  status: string | null;
  updatedAt: Date | null;
  paidAt: Date | null;
  feeMinor: bigint | null;
  failureCode: string | null;
  failureMessage: string | null;
  providerReference: string | null;
}

export async function updatePayout(db: pg.ClientBase, id: string, p: PayoutPatch): Promise<Payout> {
  const [row] = await runPrepared<PayoutRow>(
    db,
    "payments.update_payout",
    `UPDATE payments.payouts SET status = COALESCE($2, status), updated_at = COALESCE($3, updated_at),
       paid_at = COALESCE($4, paid_at), fee_minor = COALESCE($5, fee_minor), failure_code = COALESCE($6, failure_code),
       failure_message = COALESCE($7, failure_message), provider_reference = COALESCE($8, provider_reference)
     WHERE id = $1 RETURNING ${PAYOUT_COLUMNS}`,
    [id, p.status, p.updatedAt, p.paidAt, p.feeMinor, p.failureCode, p.failureMessage, p.providerReference],
  );
  if (!row) throw new Error(`payout ${id} not found`);
  return asPayout(row);
}

/** One journal of a payout's move: `amountMinor` out of `credit` into `debit`, named `<payout id>:<suffix>`. */
export interface PayoutJournal {
  suffix: string;
  debit: "available" | "reserved" | "payouts_sent" | "fees";
  credit: "available" | "reserved" | "payouts_sent";
  amountMinor: bigint;
  memo: string;
}

/**
 * A move of a payout outside a batch in one statement (src/payouts.ts `advancePayout`): the update,
 * only while the payout is still in the status the caller saw (`from.status`: a concurrent move
 * re-checks it on the row's newest version, so two moves cannot both happen); the move's journals
 * and its event (`bookAndQueue`), so it is published only if the move commits. Undefined when the status was no longer `from.status`: nothing was written.
 */
export async function movePayout(
  pool: pg.Pool,
  from: Payout,
  p: PayoutPatch,
  journals: PayoutJournal[],
  event: OutboxEvent,
): Promise<Payout | undefined> {
  const [row] = await runPrepared<PayoutRow>(pool, "payments.move_payout", MOVE_PAYOUT, [
    from.id,
    p.status,
    p.updatedAt,
    p.paidAt,
    p.feeMinor,
    p.failureCode,
    p.failureMessage,
    p.providerReference,
    from.status,
    ...bookAndQueueValues(journals, event),
  ]);
  return row && asPayout(row);
}

const MOVE_PAYOUT = `WITH moved AS (
       UPDATE payments.payouts SET status = $2, updated_at = $3, paid_at = COALESCE($4, paid_at),
         fee_minor = COALESCE($5, fee_minor), failure_code = COALESCE($6, failure_code),
         failure_message = COALESCE($7, failure_message), provider_reference = COALESCE($8, provider_reference)
        WHERE id = $1 AND status = $9 AND batch_id IS NULL
       RETURNING ${PAYOUT_COLUMNS}),
     ${bookAndQueue("moved", 10)}
     SELECT * FROM moved`;

/** The provider's reference of each recipient (its transfer recipient code), by id. */
export async function recipientReferences(pool: pg.Pool, ids: string[]): Promise<Map<string, string | null>> {
  const rows = await runPrepared<{ id: string; providerReference: string | null }>(
    pool,
    "payments.recipient_references",
    `SELECT id, provider_reference AS "providerReference" FROM payments.recipients WHERE id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.providerReference]));
}

/** A verified recipient of `tenant` (row-level security holds it to the call's tenant anyway). */
export async function recipientOf(pool: pg.Pool, id: string, tenant: string): Promise<Recipient | undefined> {
  const [row] = await runPrepared<Recipient>(
    pool,
    "payments.recipient_by_id",
    `SELECT ${RECIPIENT_COLUMNS} FROM payments.recipients WHERE id = $1 AND tenant = $2`,
    [id, tenant],
  );
  return row;
}
