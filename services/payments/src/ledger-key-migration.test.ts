/**
 * The ledger's key migration (20270114000000_ledger_journal_key) on a ledger that already holds
 * lines: every migration before it is applied to a schema of its own, journals are posted as the
 * service posted them (one debit and one credit line each), then the migration runs. Every line must
 * stay, with its side, and a posted journal must still be refused a second time.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { migrate } from "@gantry/kit";
import { type EarlierMigrations, migrationsBefore } from "@gantry/infra/testing/migrations-before.ts";
import { type PaymentsTest, startPayments } from "./test/helpers.ts";

const MIGRATIONS = fileURLToPath(new URL("../prisma/migrations/", import.meta.url));
const KEY_MIGRATION = "20270114000000_ledger_journal_key";
const SCHEMA = "payments_ledger_key";
let t: PaymentsTest;
let earlier: EarlierMigrations;

before(async () => {
  t = await startPayments();
  earlier = migrationsBefore(MIGRATIONS, KEY_MIGRATION);
});
after(async () => {
  await t?.db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  earlier?.remove();
  await t?.stop();
});

const post = (journal: string, debit: string, credit: string, amount: number) =>
  t.db.query(
    `INSERT INTO ${SCHEMA}.ledger_entries (tenant, journal_id, account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
     VALUES ('key-co', $1, $2, 'sandbox', 'NGN', $4, 'payment', $1, 'm', now()), ('key-co', $1, $3, 'sandbox', 'NGN', -$4::bigint, 'payment', $1, 'm', now())`,
    [journal, debit, credit, amount],
  );

const lines = async () =>
  (
    await t.db.query(
      `SELECT journal_id, account, amount_minor::int AS amount FROM ${SCHEMA}.ledger_entries ORDER BY journal_id, account`,
    )
  ).rows;

test("the ledger's key migration keeps every line, knows each by journal and side, and still refuses a journal posted twice", async () => {
  await migrate(t.db, SCHEMA, earlier.dir);
  await post("pay_1:settled", "available", "pending", 1000);
  await post("po_1:reserved", "reserved", "available", 400);
  await post("po_1:paid", "payouts_sent", "reserved", 400);
  const before = await lines();

  earlier.add(KEY_MIGRATION);
  assert.ok((await migrate(t.db, SCHEMA, earlier.dir)).some((m) => m.applied));

  assert.deepEqual(await lines(), before);
  const { rows: sides } = await t.db.query(
    `SELECT journal_id, account, debit FROM ${SCHEMA}.ledger_entries WHERE journal_id = 'po_1:paid' ORDER BY account`,
  );
  assert.deepEqual(sides, [
    { journal_id: "po_1:paid", account: "payouts_sent", debit: true },
    { journal_id: "po_1:paid", account: "reserved", debit: false },
  ]);
  await assert.rejects(post("pay_1:settled", "available", "pending", 1000), /ledger_entries_pkey/);
  await assert.rejects(post("pay_1:settled", "fees", "available", 5), /ledger_entries_pkey/);
  await post("pay_2:settled", "available", "pending", 7);
  assert.equal((await lines()).length, before.length + 2);
});
