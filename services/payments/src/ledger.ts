/**
 * @module payments/ledger
 * The double-entry ledger, in integer minor units. Every money movement posts one journal: one row
 * (table `ledger_journals`) of the account debited, the account credited and the amount moved,
 * balanced by construction (both sides NOT NULL and different, the amount positive: migration
 * 20270116000000_ledger_journals), and the database refuses the same journal twice (the primary
 * key), so a movement is booked exactly once even when a webhook and a poll race. The view
 * `ledger_entries` shows each journal as its two lines (debit positive, credit negative).
 *
 * Accounts, per tenant, settlement account (src/settlement.ts: where the money is) and currency:
 * - `available`: payable now; `pending`: received, not yet settled; `reserved`: held by payouts in flight;
 * - `customer_payments` (credited by payments), `refunds`, `payouts_sent`, `fees`: where money came from or went.
 */
import type { Prisma } from "./db.ts";
import { execute, type SqlTx } from "./sql.ts";

export type Account = "available" | "pending" | "reserved" | "customer_payments" | "fees" | "payouts_sent" | "refunds";

type Tx = Pick<Prisma.TransactionClient, "ledgerJournal" | "$queryRawUnsafe">;

export interface Journal {
  tenant: string;
  /** The settlement account both lines are booked in: a movement never crosses accounts. */
  settlementAccount: string;
  /** Unique name of the movement: `<record id>:<movement>`. */
  id: string;
  currency: string;
  refType: "payment" | "payout";
  refId: string;
  memo: string;
  /** The journal moves `amountMinor` out of `credit` into `debit`. */
  debit: Account;
  credit: Account;
  amountMinor: bigint;
  at: Date;
}

/** True when journal `param` is posted: one lookup of the primary key. `post` and `posted` ask it. */
export const journalPosted = (param: string) =>
  `EXISTS (SELECT 1 FROM "payments"."ledger_journals" WHERE journal_id = ${param})`;

/**
 * The journals' rows as arrays of one element a journal (name, debit account, credit account,
 * amount, memo), so a statement reads them with one function scan: `post` and src/payout-writes.ts
 * `bookAndQueue` bind these. `name` is what the statement makes the journal's id from (the id
 * itself, or a payout's suffix). A negative amount is the same movement the other way round: its
 * sides are swapped, so the row's amount is positive and its lines are the ones the journal names.
 */
export function journalRows<J extends { debit: Account; credit: Account; amountMinor: bigint; memo: string }>(
  journals: readonly J[],
  name: (j: J) => string,
): [names: string[], debits: Account[], credits: Account[], amounts: bigint[], memos: string[]] {
  const names: string[] = [];
  const debits: Account[] = [];
  const credits: Account[] = [];
  const amounts: bigint[] = [];
  const memos: string[] = [];
  for (const j of journals) {
    const forward = j.amountMinor > 0n;
    names.push(name(j));
    debits.push(forward ? j.debit : j.credit);
    credits.push(forward ? j.credit : j.debit);
    amounts.push(forward ? j.amountMinor : -j.amountMinor);
    memos.push(j.memo);
  }
  return [names, debits, credits, amounts, memos];
}

const POST = `INSERT INTO "payments"."ledger_journals"
       (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id,
        memo, created_at)
     SELECT $1, j.journal_id, j.debit, j.credit, $3, $4, j.amount, $5, $6, j.memo, $7
       FROM unnest($8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[]) AS j(journal_id, debit, credit, amount, memo)
      WHERE NOT ${journalPosted("$2")}`;

/**
 * Posts a journal; a no-op when this journal was already posted (returns false). The existence
 * check sees the caller's transaction.
 */
export async function post(tx: SqlTx, j: Journal): Promise<boolean> {
  if (j.amountMinor === 0n) return false;
  const inserted = await execute(tx, POST, [
    j.tenant,
    j.id,
    j.settlementAccount,
    j.currency,
    j.refType,
    j.refId,
    j.at,
    ...journalRows([j], (one) => one.id),
  ]);
  return inserted > 0;
}

/** Whether journal `id` is posted. */
export async function posted(tx: Pick<Tx, "$queryRawUnsafe">, id: string): Promise<boolean> {
  const [row] = await tx.$queryRawUnsafe<Array<{ posted: boolean }>>(`SELECT ${journalPosted("$1")} AS posted`, id);
  return row.posted;
}

export interface Balances {
  available: bigint;
  pending: bigint;
  reserved: bigint;
}

/**
 * Balances of one tenant (exactly, not its sub-tenants), keyed `<settlement account> <currency>`:
 * the rows the ledger's trigger keeps (table `balances`), so a read does not grow with the ledger.
 */
export async function balances(
  tx: Tx,
  tenant: string,
  filter: { settlementAccount?: string; currency?: string } = {},
): Promise<Map<string, Balances & { settlementAccount: string; currency: string }>> {
  const rows = await tx.$queryRawUnsafe<Array<Balances & { settlementAccount: string; currency: string }>>(
    `SELECT settlement_account AS "settlementAccount", currency, available, pending, reserved FROM "payments"."balances"
     WHERE tenant = $1 AND ($2::text IS NULL OR settlement_account = $2) AND ($3::text IS NULL OR currency = $3)`,
    tenant,
    filter.settlementAccount ?? null,
    filter.currency ?? null,
  );
  return new Map(rows.map((r) => [balanceKey(r.settlementAccount, r.currency), r]));
}

export const balanceKey = (settlementAccount: string, currency: string) => `${settlementAccount} ${currency}`;

/**
 * Locks the balance row of one tenant, settlement account and currency until the transaction ends:
 * the row payout.send's statement updates last (the ledger's trigger, which also refuses a
 * reservation beyond `available`), so a check made after this sees every reservation committed
 * before and none can come in between. No row, no balance: nothing to lock, and any payout is refused.
 */
export async function lockBalance(tx: Tx, tenant: string, settlementAccount: string, currency: string): Promise<void> {
  await tx.$queryRawUnsafe(
    `SELECT 1 FROM "payments"."balances" WHERE tenant = $1 AND settlement_account = $2 AND currency = $3 FOR UPDATE`,
    tenant,
    settlementAccount,
    currency,
  );
}
