/**
 * payment.initiate, payment.status and payment.list on the sandbox provider (the quick start's
 * default): the state machine through polling, the sandbox's magic amounts, amounts checked against
 * the currency's exponent, idempotency (replay, mismatch, concurrency), NATS events, pagination and
 * filters, tenant isolation, and the ledger after each.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertLedgerBalanced, type PaymentsTest, startPayments, watchEvents } from "./helpers.ts";

let t: PaymentsTest;
before(async () => {
  t = await startPayments();
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
});

test("payment.initiate (sandbox): pending with a checkout URL; status polling moves it to succeeded and books it", async () => {
  const tenant = "pay-co";
  const p = await t.call(
    "payment.initiate",
    {
      amount: 49.99,
      currency: "USD",
      description: "Invoice 42",
      customerEmail: "billing@northwind.example",
      contactId: "ctc_1",
    },
    { tenant },
  );
  assert.match(p.id, /^pay_/);
  assert.equal(p.status, "pending");
  assert.equal(p.mode, "sandbox");
  assert.equal(p.provider, "provider_a");
  assert.equal(p.credentialSource, "platform");
  assert.deepEqual(p.amount, { amount: 49.99, currency: "USD", minor: 4999 });
  assert.match(p.checkoutUrl, /^https:\/\/sandbox\.gantry\.invalid\/pay\/pay_/);

  const s = await t.call("payment.status", { id: p.id }, { tenant });
  assert.equal(s.status, "succeeded");
  assert.ok(s.succeeded);
  assert.deepEqual(
    s.history.map((h: any) => [h.from, h.to, h.source]),
    [
      [null, "pending", "api"],
      ["pending", "succeeded", "poll"],
    ],
  );
  // Polling again changes nothing.
  const again = await t.call("payment.status", { id: p.id }, { tenant });
  assert.equal(again.history.length, 2);

  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.deepEqual(bal.balances[0].available, { amount: 49.99, currency: "USD", minor: 4999 });
  assert.equal(bal.balances[0].pending.minor, 0);
  assert.equal(bal.balances[0].provider, null);
  assert.equal(bal.balances[0].reconciled, null);
  assert.equal(bal.mode, "sandbox");

  // Another tenant sees nothing of it.
  await assert.rejects(t.call("payment.status", { id: p.id }, { tenant: "other-co" }), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/id");
    return true;
  });
});

test("payment magic amounts: minor units ending 02 fail, 05 expire, 09 stay pending; final states do not move", async () => {
  const tenant = "magic-co";
  const declined = await t.call("payment.initiate", { amount: 10.02, currency: "USD" }, { tenant });
  const d = await t.call("payment.status", { id: declined.id }, { tenant });
  assert.equal(d.status, "failed");
  assert.equal(d.failureCode, "card_declined");
  const expired = await t.call("payment.initiate", { amount: 1005, currency: "JPY" }, { tenant });
  assert.deepEqual(expired.amount, { amount: 1005, currency: "JPY", minor: 1005 });
  assert.equal((await t.call("payment.status", { id: expired.id }, { tenant })).status, "expired");
  const waiting = await t.call("payment.initiate", { amount: 1.009, currency: "KWD" }, { tenant });
  assert.equal(waiting.amount.minor, 1009);
  assert.equal((await t.call("payment.status", { id: waiting.id }, { tenant })).status, "pending");
  // Nothing was booked for payments that never succeeded.
  const bal = await t.call("payout.balance", {}, { tenant });
  assert.deepEqual(bal.balances, []);
});

test("amounts are checked against the currency's exponent; unknown currencies are refused", async () => {
  for (const [amount, currency] of [
    [49.999, "USD"],
    [10.5, "JPY"],
    [1.0001, "KWD"],
  ] as const) {
    await assert.rejects(t.call("payment.initiate", { amount, currency }), (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.equal(err.details[0].path, "/input/amount");
      assert.equal(err.details[0].code, "currency_precision");
      return true;
    });
  }
  await assert.rejects(t.call("payment.initiate", { amount: 1, currency: "XQZ" }), (err: any) => {
    assert.equal(err.details[0].code, "unknown_currency");
    return true;
  });
  // provider_b needs the payer's email (schema).
  await assert.rejects(t.call("payment.initiate", { amount: 1, currency: "NGN", provider: "provider_b" }), {
    code: "validation_failed",
  });
  const b = await t.call("payment.initiate", {
    amount: 1500,
    currency: "NGN",
    provider: "provider_b",
    customerEmail: "a@b.example",
  });
  assert.equal(b.provider, "provider_b");
  assert.equal(b.mode, "sandbox");
});

test("payment.initiate idempotency: replay returns the first payment, other input is 409, 20 concurrent calls create one", async () => {
  const tenant = "idem-co";
  const input = { amount: 12.5, currency: "EUR", idempotencyKey: "inv-1" };
  const first = await t.call("payment.initiate", input, { tenant });
  const replay = await t.call("payment.initiate", input, { tenant });
  // The first answer is the record as the service wrote it, the replay as Postgres stored it.
  assert.deepEqual(replay, first);
  await assert.rejects(t.call("payment.initiate", { ...input, amount: 13 }, { tenant }), (err: any) => {
    assert.equal(err.code, "conflict");
    assert.equal(err.details[0].path, "/input/amount");
    return true;
  });
  const many = await Promise.all(
    Array.from({ length: 20 }, () =>
      t.call("payment.initiate", { amount: 7, currency: "EUR", idempotencyKey: "inv-2" }, { tenant }),
    ),
  );
  assert.equal(new Set(many.map((p) => p.id)).size, 1);
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM payments.payments WHERE tenant = $1`, [tenant]);
  assert.equal(rows[0].n, 2);
});

test("payment.list: newest first, paginated, filtered by status, provider, contact and time; own tenant only", async () => {
  const tenant = "list-co";
  const a = await t.call("payment.initiate", { amount: 1, currency: "USD", contactId: "ctc_a" }, { tenant });
  const b = await t.call("payment.initiate", { amount: 2.02, currency: "USD", leadId: "lead_b" }, { tenant });
  const c = await t.call(
    "payment.initiate",
    { amount: 3, currency: "NGN", provider: "provider_b", customerEmail: "c@d.example" },
    { tenant },
  );
  await t.call("payment.status", { id: b.id }, { tenant });
  await t.call("payment.initiate", { amount: 4, currency: "USD" }, { tenant: "list-other" });

  const all = await t.call("payment.list", {}, { tenant });
  assert.deepEqual(
    all.items.map((p: any) => p.id),
    [c.id, b.id, a.id],
  );
  const p1 = await t.call("payment.list", { limit: 2 }, { tenant });
  const p2 = await t.call("payment.list", { limit: 2, cursor: p1.nextCursor }, { tenant });
  assert.deepEqual(
    [...p1.items, ...p2.items].map((p: any) => p.id),
    [c.id, b.id, a.id],
  );
  assert.equal(p2.nextCursor, null);
  assert.deepEqual(
    (await t.call("payment.list", { status: "failed" }, { tenant })).items.map((p: any) => p.id),
    [b.id],
  );
  assert.deepEqual(
    (await t.call("payment.list", { provider: "provider_b" }, { tenant })).items.map((p: any) => p.id),
    [c.id],
  );
  assert.deepEqual(
    (await t.call("payment.list", { contactId: "ctc_a" }, { tenant })).items.map((p: any) => p.id),
    [a.id],
  );
  assert.deepEqual(
    (await t.call("payment.list", { leadId: "lead_b" }, { tenant })).items.map((p: any) => p.id),
    [b.id],
  );
  assert.equal(
    (await t.call("payment.list", { createdAfter: new Date(Date.now() + 60_000).toISOString() }, { tenant })).items
      .length,
    0,
  );
  assert.equal((await t.call("payment.list", { createdBefore: a.created }, { tenant })).items.length, 0);
  await assert.rejects(t.call("payment.list", { cursor: "nope" }, { tenant }), (err: any) => {
    assert.equal(err.details[0].code, "invalid_cursor");
    return true;
  });
});

test("status changes are published on NATS: payments.payment.<status>", async () => {
  const tenant = "events-co";
  const events = watchEvents(t, "payments.payment.succeeded");
  const p = await t.call("payment.initiate", { amount: 20, currency: "GBP" }, { tenant });
  await t.call("payment.status", { id: p.id }, { tenant });
  const body = await events.next(p.id);
  assert.equal(body.tenant, tenant);
  assert.equal(body.from, "pending");
  assert.deepEqual(body.amount, { minor: 2000, currency: "GBP" });
});
