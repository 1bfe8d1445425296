/**
 * @module payments/ledger
 * The double-entry ledger, in integer minor units. Every money movement posts one journal whose
 * entries sum to zero (debit positive, credit negative); the database refuses an unbalanced journal
 * (a statement-level trigger: a journal's lines are written by one INSERT, and the ledger is
 * append-only, so every journal balances if every INSERT's lines do) and the same journal twice
 * (the primary key, journal and side: every posting has one debit and one credit line, migration
 * 20270114000000_ledger_journal_key), so a movement is booked exactly once even when a webhook and a
 * poll race.
 *
 * Accounts, per tenant, settlement account (src/settlement.ts: where the money is) and currency:
 * - `available`: payable now; `pending`: received, not yet settled; `reserved`: held by payouts in flight;
 * - `customer_payments` (credited by payments), `refunds`, `payouts_sent`, `fees`: where money came from or went.
 */
import type { Prisma } from "./db.ts";
import { execute, type SqlTx } from "./sql.ts";

export type Account = "available" | "pending" | "reserved" | "customer_payments" | "fees" | "payouts_sent" | "refunds";

type Tx = Pick<Prisma.TransactionClient, "ledgerEntry" | "$queryRawUnsafe">;

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

/**
 * True when journal `param` is posted: asked of its debit line by the whole primary key (journal,
 * side), so the probe is one index lookup. `post` and `posted` ask it.
 */
export const journalPosted = (param: string) =>
  `EXISTS (SELECT 1 FROM "payments"."ledger_entries" WHERE journal_id = ${param} AND debit)`;

const POST = `INSERT INTO "payments"."ledger_entries"
       (tenant, journal_id, account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
     SELECT $1, $2, line.account, $3, $4, line.amount, $5, $6, $7, $8
       FROM (VALUES ($9::text, $10::bigint), ($11::text, -$10::bigint)) AS line(account, amount)
      WHERE NOT ${journalPosted("$2")}`;

/**
 * Posts a two-line journal; a no-op when this journal was already posted (returns false). One
 * statement: both lines or neither, and the existence check sees the caller's transaction.
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
    j.memo,
    j.at,
    j.debit,
    j.amountMinor,
    j.credit,
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
