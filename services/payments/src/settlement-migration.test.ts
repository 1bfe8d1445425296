/**
 * The settlement-accounts migration on a database that already holds money: the init migration is
 * applied to a schema of its own, rows are written as the earlier version wrote them, then the new
 * migration runs. Earlier money must land in the account it was in (never the platform's by
 * default), the ledger must stay balanced and append-only.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { migrate } from "@gantry/kit";
import { type EarlierMigrations, migrationsBefore } from "@gantry/infra/testing/migrations-before.ts";
import { type PaymentsTest, startPayments } from "./test/helpers.ts";

const MIGRATIONS = fileURLToPath(new URL("../prisma/migrations/", import.meta.url));
const SETTLEMENT_MIGRATION = "20261125190000_settlement_accounts";
const SCHEMA = "payments_upgrade";
let t: PaymentsTest;
let earlier: EarlierMigrations;

before(async () => {
  t = await startPayments();
  earlier = migrationsBefore(MIGRATIONS, SETTLEMENT_MIGRATION);
});
after(async () => {
  await t?.db.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  earlier?.remove();
  await t?.stop();
});

const payment = (id: string, provider: string, mode: string, source: string, recipient: string | null) =>
  t.db.query(
    `INSERT INTO ${SCHEMA}.payments (id, tenant, status, amount_minor, currency, provider, mode, credential_source, recipient_id, request_id, created_at, updated_at)
     VALUES ($1, 'up-co', 'succeeded', 1000, 'NGN', $2, $3, $4, $5, 'req_1', now(), now())`,
    [id, provider, mode, source, recipient],
  );

const journal = (ref: string, refType: string, debit: string, credit: string) =>
  t.db.query(
    `INSERT INTO ${SCHEMA}.ledger_entries (tenant, journal_id, account, currency, amount_minor, ref_type, ref_id, memo, created_at)
     VALUES ('up-co', $1, $2, 'NGN', 1000, $3, $4, 'm', now()), ('up-co', $1, $5, 'NGN', -1000, $3, $4, 'm', now())`,
    [`${ref}:settled`, debit, refType, ref, credit],
  );

test("earlier rows are booked where their money was: sandbox, destination, the tenant's own account, the platform", async () => {
  await migrate(t.db, SCHEMA, earlier.dir);
  await payment("pay_sandbox", "provider_a", "sandbox", "platform", null);
  await payment("pay_dest", "provider_a", "live", "platform", "acct_1Dest");
  await payment("pay_own", "provider_b", "live", "tenant", null);
  await payment("pay_platform", "provider_b", "live", "platform", null);
  for (const id of ["pay_sandbox", "pay_dest", "pay_own", "pay_platform"])
    await journal(id, "payment", "available", "pending");
  await t.db.query(
    `INSERT INTO ${SCHEMA}.payouts (id, tenant, recipient_id, account_name, account_number_last4, country, amount_minor, currency, status, provider, mode, credential_source, request_id, created_at, updated_at)
     VALUES ('po_1', 'up-co', 'rcp_1', 'ADA', '6789', 'NG', 1000, 'NGN', 'processing', 'provider_b', 'live', 'platform', 'req_2', now(), now())`,
  );
  await journal("po_1", "payout", "reserved", "available");

  earlier.add(SETTLEMENT_MIGRATION);
  await migrate(t.db, SCHEMA, earlier.dir);

  const { rows: payments } = await t.db.query(`SELECT id, settlement_account FROM ${SCHEMA}.payments ORDER BY id`);
  assert.deepEqual(
    payments.map((r) => [r.id, r.settlement_account]),
    [
      ["pay_dest", "provider_a:acct_1Dest"],
      ["pay_own", "provider_b:tenant"],
      ["pay_platform", "provider_b:platform"],
      ["pay_sandbox", "sandbox"],
    ],
  );
  const { rows: lines } = await t.db.query(
    `SELECT ref_id, settlement_account, SUM(amount_minor)::int AS total FROM ${SCHEMA}.ledger_entries GROUP BY ref_id, settlement_account ORDER BY ref_id`,
  );
  assert.deepEqual(
    lines.map((r) => [r.ref_id, r.settlement_account, r.total]),
    [
      ["pay_dest", "provider_a:acct_1Dest", 0],
      ["pay_own", "provider_b:tenant", 0],
      ["pay_platform", "provider_b:platform", 0],
      ["pay_sandbox", "sandbox", 0],
      ["po_1", "provider_b:platform", 0],
    ],
  );
  await assert.rejects(t.db.query(`UPDATE ${SCHEMA}.ledger_entries SET memo = 'x'`), /append-only/);
});
