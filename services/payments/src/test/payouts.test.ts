/**
 * payout.verify_account, payout.send, payout.batch, payout.status, payout.list and payout.balance on
 * the sandbox provider: recipients verified before paying, payouts refused beyond the available
 * balance, idempotency (20 concurrent identical payouts move money once), a batch validated as a
 * whole and ending partially_failed, reversal by polling, the ledger balancing to zero, and the
 * balance rows its trigger keeps (migration 20270102000000_balances) equal to the ledger's sums after
 * payouts, failures, reversals, settlements and refunds all at once.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { withTenant } from "@gantry/kit";
import { journalPosted } from "../ledger.ts";
import { advancePayment } from "../payments.ts";
import {
  assertBalancesMatchLedger,
  assertLedgerBalanced,
  fund,
  type PaymentsTest,
  plansWithoutSeqScan,
  recipient,
  startPayments,
} from "./helpers.ts";

let t: PaymentsTest;
before(async () => {
  t = await startPayments();
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
});

test("payout.verify_account: the bank's name, compared with the given one; the same account is the same recipient; the number is never kept", async () => {
  const tenant = "verify-co";
  const input = {
    country: "NG",
    currency: "NGN",
    accountNumber: "0123456789",
    bankCode: "058",
    accountName: "Obi  ada",
  };
  const r = await t.call("payout.verify_account", input, { tenant });
  assert.match(r.id, /^rcp_/);
  assert.equal(r.accountName, "OBI  ADA");
  assert.equal(r.nameMatch, "match");
  assert.equal(r.accountNumberLast4, "6789");
  assert.equal(r.mode, "sandbox");
  assert.equal(r.provider, "provider_b");
  const again = await t.call("payout.verify_account", input, { tenant });
  assert.equal(again.id, r.id);
  assert.equal(again.created, r.created);
  const other = await t.call("payout.verify_account", input, { tenant: "verify-other" });
  assert.notEqual(other.id, r.id);
  const { rows } = await t.db.query(`SELECT * FROM payments.recipients`);
  assert.ok(!JSON.stringify(rows).includes("0123456789"));

  const mismatch = await t.call("payout.verify_account", { ...input, accountNumber: "5550000001" }, { tenant });
  assert.equal(mismatch.accountName, "JANE SANDBOX");
  assert.equal(mismatch.nameMatch, "mismatch");
  const partial = await t.call(
    "payout.verify_account",
    { ...input, accountNumber: "5550000001", accountName: "Jane Doe" },
    { tenant },
  );
  assert.equal(partial.nameMatch, "partial");
  const noName = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "77771234" },
    { tenant },
  );
  assert.equal(noName.nameMatch, null);

  await assert.rejects(
    t.call("payout.verify_account", { ...input, accountNumber: "1230000" }, { tenant }),
    (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.equal(err.details[0].path, "/input/accountNumber");
      assert.equal(err.details[0].code, "account_unresolved");
      return true;
    },
  );
});

test("payout.send: needs a verified recipient of the tenant in its currency and the available balance; reserves, pays, books", async () => {
  const tenant = "send-co";
  const rcp = await recipient(t, tenant, "NGN");
  await assert.rejects(
    t.call("payout.send", { recipientId: rcp, amount: 100, currency: "NGN", idempotencyKey: "k0" }, { tenant }),
    (err: any) => {
      assert.equal(err.code, "conflict");
      assert.equal(err.details[0].code, "insufficient_balance");
      assert.equal(err.details[0].path, "/input/amount");
      return true;
    },
  );
  await fund(t, tenant, 1000, "NGN");
  await assert.rejects(
    t.call("payout.send", { recipientId: "rcp_nope", amount: 1, currency: "NGN", idempotencyKey: "k1" }, { tenant }),
    (err: any) => err.code === "not_found" && err.details[0].path === "/input/recipientId",
  );
  await assert.rejects(
    t.call(
      "payout.send",
      { recipientId: rcp, amount: 1, currency: "NGN", idempotencyKey: "k1" },
      { tenant: "send-other" },
    ),
    { code: "not_found" },
  );
  await assert.rejects(
    t.call("payout.send", { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: "k1" }, { tenant }),
    (err: any) => err.details[0].code === "recipient_currency",
  );
  await assert.rejects(t.call("payout.send", { recipientId: rcp, amount: 1, currency: "NGN" }, { tenant }), {
    code: "validation_failed",
  });

  const po = await t.call(
    "payout.send",
    {
      recipientId: rcp,
      amount: 250.5,
      currency: "NGN",
      description: "Refund 1042",
      metadata: { order: 1042 },
      idempotencyKey: "refund-1042",
    },
    { tenant },
  );
  assert.match(po.id, /^po_/);
  assert.equal(po.status, "paid");
  assert.ok(po.paid);
  assert.deepEqual(po.amount, { amount: 250.5, currency: "NGN", minor: 25050 });
  assert.equal(po.destination.accountNumberLast4, "4321");
  assert.deepEqual(po.metadata, { order: 1042 });
  assert.equal(po.idempotencyKey, "refund-1042");
  // The answer is the record as the statement wrote it (it returns the id only): read back, the payout
  // and its ledger lines hold what the answer states.
  const stored = await t.call("payout.status", { id: po.id }, { tenant });
  assert.deepEqual([stored.created, stored.updated, stored.paid], [po.created, po.updated, po.paid]);
  const { rows: lines } = await t.db.query(
    `SELECT DISTINCT created_at FROM payments.ledger_entries WHERE ref_id = $1`,
    [po.id],
  );
  assert.deepEqual(
    lines.map((l) => l.created_at.toISOString()),
    [po.updated],
  );
  const bal = await t.call("payout.balance", { currency: "NGN" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 100000 - 25050);
  assert.equal(bal.balances[0].reserved.minor, 0);

  // Beyond the available balance: refused, nothing recorded or sent.
  await assert.rejects(
    t.call(
      "payout.send",
      { recipientId: rcp, amount: 749.51, currency: "NGN", idempotencyKey: "too-much" },
      { tenant },
    ),
    (err: any) => err.details[0].code === "insufficient_balance" && err.details[0].available.minor === 74950,
  );
  const list = await t.call("payout.list", {}, { tenant });
  assert.deepEqual(
    list.items.map((p: any) => p.id),
    [po.id],
  );
});

test("20 concurrent identical payouts move money once; a replay returns the first payout; other input is 409", async () => {
  const tenant = "race-co";
  const rcp = await recipient(t, tenant, "USD");
  await fund(t, tenant, 100, "USD");
  const input = { recipientId: rcp, amount: 60, currency: "USD", idempotencyKey: "once" };
  const results = await Promise.all(Array.from({ length: 20 }, () => t.call("payout.send", input, { tenant })));
  assert.equal(new Set(results.map((r) => r.id)).size, 1);
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM payments.payouts WHERE tenant = $1`, [tenant]);
  assert.equal(rows[0].n, 1);
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 4000);
  await assert.rejects(t.call("payout.send", { ...input, amount: 1 }, { tenant }), (err: any) => {
    assert.equal(err.code, "conflict");
    assert.equal(err.details[0].code, "idempotency_mismatch");
    return true;
  });
  // Different keys at once cannot overspend: 60 + 60 > 40 left, so both are refused; 5 × 8 fit exactly.
  const spends = await Promise.allSettled(
    Array.from({ length: 6 }, (_, i) =>
      t.call("payout.send", { recipientId: rcp, amount: 8, currency: "USD", idempotencyKey: `s${i}` }, { tenant }),
    ),
  );
  assert.equal(spends.filter((s) => s.status === "fulfilled").length, 5);
  assert.equal((await t.call("payout.balance", { currency: "USD" }, { tenant })).balances[0].available.minor, 0);
});

test("payout.batch: validated whole before sending; one failing item ends partially_failed; each item on its own", async () => {
  const tenant = "batch-co";
  const good = await recipient(t, tenant, "NGN");
  const closed = await recipient(t, tenant, "NGN", "0002");
  await fund(t, tenant, 500, "NGN");

  await assert.rejects(
    t.call(
      "payout.batch",
      {
        items: [
          { recipientId: good, amount: 1, currency: "NGN", reference: "a" },
          { recipientId: "rcp_missing", amount: 1, currency: "NGN" },
          { recipientId: good, amount: 1.001, currency: "NGN", reference: "a" },
          { recipientId: good, amount: 1, currency: "GHS" },
        ],
        idempotencyKey: "bad-batch",
      },
      { tenant },
    ),
    (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.deepEqual(
        err.details.map((d: any) => [d.path, d.code]),
        [
          ["/input/items/1/recipientId", "record_not_found"],
          ["/input/items/2/amount", "currency_precision"],
          ["/input/items/2/reference", "duplicate_reference"],
          ["/input/items/3/currency", "recipient_currency"],
        ],
      );
      return true;
    },
  );
  assert.equal((await t.call("payout.list", {}, { tenant })).items.length, 0);

  const input = {
    items: [
      { recipientId: good, amount: 150, currency: "NGN", reference: "comm-ada" },
      { recipientId: closed, amount: 100, currency: "NGN", reference: "comm-tunde" },
      { recipientId: good, amount: 50, currency: "NGN" },
    ],
    description: "May commissions",
    idempotencyKey: "batch-may",
  };
  const b = await t.call("payout.batch", input, { tenant });
  assert.match(b.id, /^pob_/);
  assert.equal(b.status, "partially_failed");
  assert.ok(b.completed);
  assert.deepEqual(b.counts, { total: 3, pending: 0, processing: 0, paid: 2, failed: 1, cancelled: 0, reversed: 0 });
  assert.deepEqual(b.totals, [{ amount: 300, currency: "NGN", minor: 30000 }]);
  assert.deepEqual(
    b.items.map((i: any) => [i.reference, i.status, i.failureCode]),
    [
      ["comm-ada", "paid", null],
      ["comm-tunde", "failed", "account_closed"],
      [null, "paid", null],
    ],
  );
  // The failed item's reservation is released: 500 − 150 − 50.
  assert.equal((await t.call("payout.balance", { currency: "NGN" }, { tenant })).balances[0].available.minor, 30000);
  const replay = await t.call("payout.batch", input, { tenant });
  assert.equal(replay.id, b.id);
  const status = await t.call("payout.status", { id: b.id }, { tenant });
  assert.equal(status.status, "partially_failed");
  const items = await t.call("payout.list", { batchId: b.id, status: "failed" }, { tenant });
  assert.deepEqual(
    items.items.map((i: any) => i.reference),
    ["comm-tunde"],
  );
  assert.equal((await t.call("payout.list", { recipientId: good }, { tenant })).items.length, 2);

  // A batch beyond the balance is refused whole.
  await assert.rejects(
    t.call(
      "payout.batch",
      {
        items: [
          { recipientId: good, amount: 200, currency: "NGN" },
          { recipientId: good, amount: 200, currency: "NGN" },
        ],
        idempotencyKey: "too-big",
      },
      { tenant },
    ),
    (err: any) => err.details.length === 2 && err.details.every((d: any) => d.code === "insufficient_balance"),
  );
});

test("payout.status: a paid payout reversed by the bank moves paid → reversed and its money comes back", async () => {
  const tenant = "reverse-co";
  const rcp = await recipient(t, tenant, "GHS", "0003");
  await fund(t, tenant, 10, "GHS");
  const po = await t.call(
    "payout.send",
    { recipientId: rcp, amount: 4, currency: "GHS", idempotencyKey: "r1" },
    { tenant },
  );
  assert.equal(po.status, "paid");
  assert.equal((await t.call("payout.balance", { currency: "GHS" }, { tenant })).balances[0].available.minor, 600);
  const s = await t.call("payout.status", { id: po.id }, { tenant });
  assert.equal(s.status, "reversed");
  assert.equal((await t.call("payout.balance", { currency: "GHS" }, { tenant })).balances[0].available.minor, 1000);
  // Final: polling again changes nothing.
  assert.equal((await t.call("payout.status", { id: po.id }, { tenant })).status, "reversed");
  await assert.rejects(t.call("payout.status", { id: po.id }, { tenant: "someone-else" }), { code: "not_found" });
  await assert.rejects(t.call("payout.status", { id: "pob_nothing" }, { tenant }), { code: "not_found" });
});

test("payout.balance: every currency held, zeros for one never held; the database refuses an unbalanced journal", async () => {
  const tenant = "bal-co";
  await fund(t, tenant, 5, "EUR");
  await fund(t, tenant, 700, "JPY");
  const all = await t.call("payout.balance", {}, { tenant });
  assert.deepEqual(
    all.balances.map((b: any) => [b.currency, b.available.minor]),
    [
      ["EUR", 500],
      ["JPY", 700],
    ],
  );
  const none = await t.call("payout.balance", { currency: "KWD" }, { tenant });
  assert.deepEqual(none.balances[0].available, { amount: 0, currency: "KWD", minor: 0 });
  // A journal is one row, balanced by construction: the schema refuses any that could not balance.
  const forge = (debit: string | null, credit: string | null, amount: number) =>
    t.db.query(
      `INSERT INTO payments.ledger_journals (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
       VALUES ('bal-co', 'forged', $1, $2, 'sandbox', 'EUR', $3, 'payment', 'x', 'forged', now())`,
      [debit, credit, amount],
    );
  const refused = (code: string, constraint?: string) => (err: { code?: string; constraint?: string }) => {
    assert.equal(err.code, code);
    if (constraint) assert.equal(err.constraint, constraint);
    return true;
  };
  await assert.rejects(forge("available", null, 100000), refused("23502")); // no credit side
  await assert.rejects(forge(null, "pending", 100000), refused("23502")); // no debit side
  await assert.rejects(forge("available", "available", 100000), refused("23514", "ledger_journals_sides_check"));
  await assert.rejects(forge("available", "pending", 0), refused("23514", "ledger_journals_amount_check"));
  await assert.rejects(forge("available", "pending", -100000), refused("23514", "ledger_journals_amount_check"));
  // Nothing of them was written: the balance is what was funded.
  const eur = await t.call("payout.balance", { currency: "EUR" }, { tenant });
  assert.equal(eur.balances[0].available.minor, 500);
  await assert.rejects(
    t.db.query(`UPDATE payments.ledger_journals SET amount_minor = 1 WHERE tenant = 'bal-co'`),
    /append-only/,
  );
  await assert.rejects(t.db.query(`DELETE FROM payments.ledger_journals WHERE tenant = 'bal-co'`), /append-only/);
  await assertBalancesMatchLedger(t);
});

test("concurrent payouts, failures, reversals, settlements and refunds leave every balance row equal to its ledger sum", async () => {
  const tenant = "balance-row-co";
  const paid = await recipient(t, tenant, "USD");
  const closed = await recipient(t, tenant, "USD", "0002");
  const reversing = await recipient(t, tenant, "USD", "0003");
  const refundable = await Promise.all([fund(t, tenant, 30, "USD"), fund(t, tenant, 30, "USD")]);
  await fund(t, tenant, 40, "USD"); // 100.00 available

  const send = (recipientId: string, i: number) =>
    t.call(
      "payout.send",
      { recipientId, amount: 1, currency: "USD", idempotencyKey: `row-${recipientId}-${i}` },
      { tenant },
    );
  const settling = await Promise.all(
    [1, 2, 3].map(async () => (await t.call("payment.initiate", { amount: 10, currency: "USD" }, { tenant })).id),
  );
  const outcomes = await Promise.allSettled([
    ...Array.from({ length: 12 }, (_, i) => send(paid, i)),
    ...Array.from({ length: 6 }, (_, i) => send(closed, i)),
    ...Array.from({ length: 4 }, (_, i) => send(reversing, i)),
    ...settling.map((id) => t.call("payment.status", { id }, { tenant })),
    ...refundable.map((id) =>
      withTenant(tenant, () => advancePayment(t.ctx, id, { status: "refunded" }, { source: "poll" })),
    ),
  ]);
  assert.deepEqual(
    outcomes.filter((o) => o.status === "rejected"),
    [],
  );
  const payouts = outcomes.slice(0, 22).map((o) => (o as PromiseFulfilledResult<any>).value);
  assert.deepEqual(
    payouts.map((p) => p.status),
    [...Array(12).fill("paid"), ...Array(6).fill("failed"), ...Array(4).fill("paid")],
  );
  // The reversals run concurrently too, and bring their money back.
  await Promise.all(payouts.slice(18).map((p) => t.call("payout.status", { id: p.id }, { tenant })));
  await assertBalancesMatchLedger(t);

  // 100 funded + 30 settled - 60 refunded - 12 × 1 paid (failed ones released, reversed ones back),
  // whatever order they ran in: 100 - 60 - 22 × 1 is never below zero.
  const { balances } = await t.call("payout.balance", { currency: "USD" }, { tenant });
  const sandbox = balances.find((b: any) => b.settlement.id === "sandbox");
  assert.deepEqual([sandbox.available.amount, sandbox.reserved.amount, sandbox.pending.amount], [58, 0, 0]);
  // payout.send spends exactly that row: one cent more is refused, 58.00 is paid and leaves 0.
  const over = { recipientId: paid, amount: 58.01, currency: "USD", idempotencyKey: "row-over" };
  await assert.rejects(t.call("payout.send", over, { tenant }), /exceeds the available balance of 58 USD in sandbox/);
  const all = await t.call("payout.send", { ...over, amount: 58, idempotencyKey: "row-all" }, { tenant });
  assert.equal(all.status, "paid");
  const [row] = (
    await t.db.query(`SELECT available::text, reserved::text FROM payments.balances WHERE tenant = $1`, [tenant])
  ).rows;
  assert.deepEqual(row, { available: "0", reserved: "0" });
});

test("a batch's items are read by the batch index, partial since migration 20270107000000 (batch items only)", async () => {
  const tenant = "batch-plan-co";
  const to = await recipient(t, tenant, "NGN");
  await fund(t, tenant, 100, "NGN");
  const items = [1, 2].map((amount) => ({ recipientId: to, amount, currency: "NGN" }));
  const b = await t.call("payout.batch", { items, idempotencyKey: "plan" }, { tenant });
  // The reads as the service sends them: Prisma's item list (the tenant comes from row-level
  // security) and deriveBatch's correlated subquery.
  const plans = await plansWithoutSeqScan(
    t,
    [
      `SELECT id FROM payments.payouts WHERE tenant = $1 AND batch_id = $2 ORDER BY position`,
      `SELECT ARRAY(SELECT i.status FROM payments.payouts i WHERE i.tenant = $1 AND i.batch_id = b.id) AS items
         FROM payments.payout_batches b WHERE b.id = $2`,
    ],
    [tenant, b.id],
  );
  for (const plan of plans) assert.match(plan, /payouts_tenant_batch_id_position_idx/, plan);
});

test("a journal posts once: posting it again is refused whatever its accounts, and the journal lookups plan on the key (migration 20270116000000)", async () => {
  const tenant = "journal-co";
  const to = await recipient(t, tenant, "NGN");
  await fund(t, tenant, 100, "NGN");
  const p = await t.call(
    "payout.send",
    { recipientId: to, amount: 1, currency: "NGN", idempotencyKey: "j" },
    { tenant },
  );
  const { settlementAccount } = (
    await t.db.query(`SELECT settlement_account AS "settlementAccount" FROM payments.payouts WHERE id = $1`, [p.id])
  ).rows[0];
  const postAgain = (debit: string, credit: string) =>
    t.db.query(
      `INSERT INTO payments.ledger_journals (tenant, journal_id, debit_account, credit_account, settlement_account, currency, amount_minor, ref_type, ref_id, memo, created_at)
       VALUES ($1, $2, $3, $4, $5, 'NGN', 100, 'payout', $6, 'again', now())`,
      [tenant, `${p.id}:reserved`, debit, credit, settlementAccount, p.id],
    );
  await assert.rejects(postAgain("reserved", "available"), /ledger_journals_pkey/);
  await assert.rejects(postAgain("fees", "available"), /ledger_journals_pkey/);
  // Its lines, as the view shows them to readers of lines: one a side.
  const { rows: lines } = await t.db.query(
    `SELECT account, amount_minor::int AS minor, debit FROM payments.ledger_entries WHERE journal_id = $1 ORDER BY debit DESC`,
    [`${p.id}:reserved`],
  );
  assert.deepEqual(lines, [
    { account: "reserved", minor: 100, debit: true },
    { account: "available", minor: -100, debit: false },
  ]);
  // The existence check as src/ledger.ts asks it (`posted`, and negated in `post`).
  const plans = await plansWithoutSeqScan(
    t,
    [`SELECT ${journalPosted("$1")}`, `SELECT 1 WHERE NOT ${journalPosted("$1")}`],
    [`${p.id}:reserved`],
  );
  for (const plan of plans) assert.match(plan, /ledger_journals_pkey/, plan);
  // The view runs as its reader, so the journals' row-level security holds through it: the service's
  // pool, in this tenant's scope, sees this tenant's lines only (other tests' tenants have lines too).
  const { rows: seen } = await withTenant(tenant, () =>
    t.ctx.pool.query("SELECT DISTINCT tenant FROM payments.ledger_entries"),
  );
  assert.deepEqual(seen, [{ tenant }]);
});

test("a webhook's lookups by provider reference plan on the reference indexes, which hold live records only (migration 20270110000000)", async () => {
  // The lookups as src/webhooks.ts sends them through Prisma (the tenant comes from row-level security).
  const plans = await plansWithoutSeqScan(
    t,
    [
      `SELECT id FROM payments.payments WHERE provider_reference = $1 AND mode <> $2 LIMIT 1`,
      `SELECT id FROM payments.payouts WHERE provider_reference = $1 AND mode <> $2 LIMIT 1`,
    ],
    ["ref_1", "sandbox"],
  );
  assert.match(plans[0], /payments_provider_provider_reference_idx/, plans[0]);
  assert.match(plans[1], /payouts_provider_provider_reference_idx/, plans[1]);
});
