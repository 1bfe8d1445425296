/**
 * The ledger's one-row-per-journal migration (20270116000000_ledger_journals) on a ledger that
 * already holds lines: every migration before it is applied to a schema of its own, journals are
 * posted as the service posted them (one debit and one credit line each, the balance rows kept by
 * the lines' trigger), then the migration runs. Each journal's two lines must become one row, the
 * view `ledger_entries` must show the same lines, the balance rows must not move, and the new table
 * must keep the ledger's guarantees: its trigger keeps the balance rows and refuses a reservation
 * beyond what is available, a journal posts once, and nothing is updated or deleted.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { migrate } from "@gantry/kit";
import { type EarlierMigrations, migrationsBefore } from "@gantry/infra/testing/migrations-before.ts";
import { type PaymentsTest, startPayments } from "./test/helpers.ts";

const MIGRATIONS = fileURLToPath(new URL("../prisma/migrations/", import.meta.url));
const JOURNALS_MIGRATION = "20270116000000_ledger_journals";
const SCHEMA = "payments_ledger_journals";
// The ledger's triggers keep the balance rows of schema `payments` (they name it), so this test's
// tenant is one no other test of that schema uses.
const TENANT = "journals-migration-co";
let t: PaymentsTest;
let earlier: EarlierMigrations;

before(async () => {
  t = await startPayments();
  earlier = migrationsBefore(MIGRATIONS, JOURNALS_MIGRATION);
});
after(async () => {
  await t?.db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await t?.db.query(`DELETE FROM payments.balances WHERE tenant = $1`, [TENANT]);
  earlier?.remove();
  await t?.stop();
});

/** A journal as the service posted it before the migration: its two lines in one INSERT. */
const postLines = (journal: string, debit: string, credit: string, amount: number, currency = "NGN") =>
  t.db.query(
    `INSERT INTO ${SCHEMA}.ledger_entries (tenant, journal_id, account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
     VALUES ($5, $1, $2, 'sandbox', $6, $4, 'payment', $1, 'm ' || $1, '2027-01-15T10:00:00Z'),
            ($5, $1, $3, 'sandbox', $6, -$4::bigint, 'payment', $1, 'm ' || $1, '2027-01-15T10:00:00Z')`,
    [journal, debit, credit, amount, TENANT, currency],
  );

/** A journal as the service posts it after: one row. */
const postJournal = (journal: string, debit: string, credit: string, amount: number) =>
  t.db.query(
    `INSERT INTO ${SCHEMA}.ledger_journals (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
     VALUES ($5, $1, $2, $3, 'sandbox', 'NGN', $4, 'payout', $1, 'm', now())`,
    [journal, debit, credit, amount, TENANT],
  );

const lines = async () =>
  (
    await t.db.query(
      `SELECT tenant, journal_id, account, settlement_account, currency, amount_minor::text AS amount, ref_type, ref_id,
              memo, created_at, debit
         FROM ${SCHEMA}.ledger_entries ORDER BY journal_id, debit DESC`,
    )
  ).rows;

const balances = async () =>
  (
    await t.db.query(
      `SELECT currency, available::text, pending::text, reserved::text FROM payments.balances WHERE tenant = $1 ORDER BY currency`,
      [TENANT],
    )
  ).rows;

test("the one-row-per-journal migration keeps every line and balance, and the journals keep the ledger's guarantees", async () => {
  await migrate(t.db, SCHEMA, earlier.dir);
  await postLines("pay_1:received", "pending", "customer_payments", 1000);
  await postLines("pay_1:settled", "available", "pending", 1000);
  await postLines("pay_1:application_fee", "fees", "available", 30);
  await postLines("pay_2:settled", "available", "pending", 500, "USD");
  await postLines("po_1:reserved", "reserved", "available", 400);
  await postLines("po_1:paid", "payouts_sent", "reserved", 400);
  await postLines("po_2:reserved", "reserved", "available", 100);
  const linesBefore = await lines();
  const balancesBefore = await balances();
  assert.deepEqual(balancesBefore, [
    { currency: "NGN", available: "470", pending: "0", reserved: "100" },
    { currency: "USD", available: "500", pending: "-500", reserved: "0" },
  ]);

  earlier.add(JOURNALS_MIGRATION);
  assert.ok((await migrate(t.db, SCHEMA, earlier.dir)).some((m) => m.applied));

  assert.deepEqual(await lines(), linesBefore);
  assert.deepEqual(await balances(), balancesBefore);
  const { rows: journals } = await t.db.query(
    `SELECT journal_id, debit_account, credit_account, amount_minor::int AS amount FROM ${SCHEMA}.ledger_journals ORDER BY journal_id`,
  );
  assert.deepEqual(journals, [
    { journal_id: "pay_1:application_fee", debit_account: "fees", credit_account: "available", amount: 30 },
    { journal_id: "pay_1:received", debit_account: "pending", credit_account: "customer_payments", amount: 1000 },
    { journal_id: "pay_1:settled", debit_account: "available", credit_account: "pending", amount: 1000 },
    { journal_id: "pay_2:settled", debit_account: "available", credit_account: "pending", amount: 500 },
    { journal_id: "po_1:paid", debit_account: "payouts_sent", credit_account: "reserved", amount: 400 },
    { journal_id: "po_1:reserved", debit_account: "reserved", credit_account: "available", amount: 400 },
    { journal_id: "po_2:reserved", debit_account: "reserved", credit_account: "available", amount: 100 },
  ]);

  // The journals' trigger keeps the balance rows...
  await postJournal("po_3:reserved", "reserved", "available", 470);
  assert.deepEqual((await balances())[0], { currency: "NGN", available: "0", pending: "0", reserved: "570" });
  // ...and refuses a reservation beyond what was available, saying what was.
  await assert.rejects(postJournal("po_4:reserved", "reserved", "available", 1), (err: any) => {
    assert.equal(err.code, "P0001");
    assert.equal(err.message, "insufficient_balance");
    assert.equal(err.detail, "0");
    return true;
  });
  await assert.rejects(postJournal("po_3:reserved", "fees", "available", 1), /ledger_journals_pkey/);
  await assert.rejects(t.db.query(`UPDATE ${SCHEMA}.ledger_journals SET memo = 'x'`), /append-only/);
  await assert.rejects(t.db.query(`DELETE FROM ${SCHEMA}.ledger_journals`), /append-only/);
  assert.equal((await lines()).length, linesBefore.length + 2);
  assert.deepEqual((await balances())[0], { currency: "NGN", available: "0", pending: "0", reserved: "570" });
});
