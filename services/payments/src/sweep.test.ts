/**
 * The resend sweep: a payout whose send failed (the provider answered 500) stays pending with its
 * reservation, and the sweep — without anyone calling — looks it up, finds the provider does not
 * know it, and sends it once under the same reference. A payout left `processing` (its webhook
 * lost) is brought to the provider's final status by the sweep, also without anyone calling.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertLedgerBalanced, type PaymentsTest, startPayments } from "./test/helpers.ts";
import { type PaystackServer, startPaystack } from "./test/paystack-server.ts";

const KEY = "sk_test_paystack_sweep";
let ps: PaystackServer;
let t: PaymentsTest;

before(async () => {
  ps = await startPaystack(KEY);
  t = await startPayments({
    PAYMENTS_PROVIDER_B_URL: ps.url,
    PAYMENTS_PROVIDER_B_SECRET_KEY: KEY,
    PAYMENTS_RESEND_SWEEP_SECONDS: "1",
  });
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
  await ps?.stop();
});

test("a payout left pending by a failed send is sent by the sweep, once", async () => {
  const tenant = "sweep-co";
  const p = await t.call(
    "payment.initiate",
    { amount: 100, currency: "NGN", provider: "provider_b", customerEmail: "p@example.com" },
    { tenant },
  );
  const tx = ps.transactions.get(p.id);
  assert.ok(tx);
  tx.status = "success";
  assert.equal((await t.call("payment.status", { id: p.id }, { tenant })).status, "succeeded");
  const r = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058" },
    { tenant },
  );

  ps.failNext.add("/transfer");
  const po = await t.call(
    "payout.send",
    { recipientId: r.id, amount: 40, currency: "NGN", idempotencyKey: "swept" },
    { tenant },
  );
  assert.equal(po.status, "pending");
  const deadline = Date.now() + 15_000;
  let status = "pending";
  while (status === "pending" && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 200));
    status = (await t.call("payout.list", {}, { tenant })).items[0].status;
  }
  assert.equal(status, "processing");
  assert.equal(ps.transfers.get(po.id)?.amount, 4000);
  // One transfer accepted by the provider (the first attempt answered 500 before doing anything).
  assert.equal([...ps.transfers.values()].filter((x) => x.reference === po.id).length, 1);
  assert.equal(ps.requests.filter((x) => x.path === "/transfer").length, 2);
});

test("a payout left processing (its webhook lost) reaches the provider's final status by the sweep", async () => {
  const tenant = "sweep-co";
  const [po] = (await t.call("payout.list", {}, { tenant })).items;
  assert.equal(po.status, "processing");
  const transfer = ps.transfers.get(po.id);
  assert.ok(transfer);
  transfer.status = "success"; // settled at the provider; no webhook arrives
  const deadline = Date.now() + 15_000;
  let status = po.status;
  while (status === "processing" && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 200));
    status = (await t.call("payout.list", {}, { tenant })).items[0].status;
  }
  assert.equal(status, "paid");
});
