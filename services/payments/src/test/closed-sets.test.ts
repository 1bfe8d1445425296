/**
 * The closed sets the hot tables hold (a ledger line's account, a payout's and a payment's status, a
 * payment event's source) are refused outside their values by the database itself, with the
 * constraint names they had as table checks (migration 20270115000000_check_domains makes them
 * domains).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fund, type PaymentsTest, recipient, startPayments } from "./helpers.ts";

let t: PaymentsTest;
before(async () => {
  t = await startPayments();
});
after(async () => t?.stop());

const refused = (constraint: string) => (err: { code?: string; constraint?: string }) => {
  assert.equal(err.code, "23514");
  assert.equal(err.constraint, constraint);
  return true;
};

test("a value outside its closed set is refused by the database: ledger account, payout and payment status, payment event source", async () => {
  const tenant = "sets-co";
  await fund(t, tenant, 100, "USD");
  const to = await recipient(t, tenant, "USD");
  const payout = await t.call(
    "payout.send",
    { recipientId: to, amount: 1, currency: "USD", idempotencyKey: "s" },
    { tenant },
  );
  const payment = await t.call("payment.initiate", { amount: 5, currency: "USD" }, { tenant });

  await assert.rejects(
    t.db.query(
      `INSERT INTO payments.ledger_journals (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
       VALUES ($1, 'x:moved', 'elsewhere', 'fees', 'sandbox', 'USD', 1, 'payout', 'x', 'm', now())`,
      [tenant],
    ),
    refused("ledger_entries_account_check"),
  );
  await assert.rejects(
    t.db.query(`UPDATE payments.payouts SET status = 'lost' WHERE id = $1`, [payout.id]),
    refused("payouts_status_check"),
  );
  await assert.rejects(
    t.db.query(`UPDATE payments.payments SET status = 'lost' WHERE id = $1`, [payment.id]),
    refused("payments_status_check"),
  );
  await assert.rejects(
    t.db.query(`UPDATE payments.payment_events SET source = 'rumour' WHERE payment_id = $1`, [payment.id]),
    refused("payment_events_source_check"),
  );
  // Values inside the sets still go in.
  await t.db.query(`UPDATE payments.payouts SET status = 'processing' WHERE id = $1`, [payout.id]);
  await t.db.query(`UPDATE payments.payment_events SET source = 'poll' WHERE payment_id = $1`, [payment.id]);
});
