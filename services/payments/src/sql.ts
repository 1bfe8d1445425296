/**
 * @module payments/sql
 * One raw statement inside a transaction that is either Prisma's (payment moves, batches) or a pg
 * client's (the payout hot path, src/payouts.ts), so the ledger, the webhook record and the outbox
 * are written by the same code in both.
 */
import type pg from "pg";

export type SqlTx = { $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> } | pg.ClientBase;

/** Runs `text` in `tx`; resolves to the number of rows it wrote. */
export async function execute(tx: SqlTx, text: string, values: unknown[]): Promise<number> {
  if ("$executeRawUnsafe" in tx) return tx.$executeRawUnsafe(text, ...values);
  return (await tx.query(text, values)).rowCount ?? 0;
}
