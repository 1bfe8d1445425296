/**
 * provider_b against a local server speaking Paystack's documented API and webhook formats:
 * initialize transaction (email, minor units, our reference), verification by polling,
 * charge.success by a signed webhook (x-paystack-signature), forged and replayed webhooks, account
 * resolution and transfer recipients, single and bulk transfers, a batch ending partially_failed,
 * a reversal, 20 concurrent identical payouts making one transfer, and the ledger balancing to zero.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { assertLedgerBalanced, type PaymentsTest, postWebhook, startPayments } from "./test/helpers.ts";
import { type PaystackServer, startPaystack } from "./test/paystack-server.ts";

const KEY = "sk_test_paystack_gantry";
let ps: PaystackServer;
let t: PaymentsTest;

before(async () => {
  ps = await startPaystack(KEY);
  t = await startPayments({
    PAYMENTS_PROVIDER_B_URL: ps.url,
    PAYMENTS_PROVIDER_B_SECRET_KEY: KEY,
    PAYMENTS_PAYOUT_PROVIDER: "provider_b",
  });
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
  await ps?.stop();
});

async function deliver(event: string, data: object, secret?: string): Promise<{ status: number; body: any }> {
  const { body, signature } = ps.signed(event, data, secret);
  return postWebhook(t, "provider_b", body, { "content-type": "application/json", "x-paystack-signature": signature });
}

async function fundNgn(tenant: string, amount: number): Promise<string> {
  const p = await t.call(
    "payment.initiate",
    { amount, currency: "NGN", provider: "provider_b", customerEmail: "payer@example.com" },
    { tenant },
  );
  const tx = ps.transactions.get(p.id);
  assert.ok(tx);
  tx.status = "success";
  const r = await deliver("charge.success", {
    id: tx.id,
    reference: p.id,
    status: "success",
    amount: tx.amount,
    currency: "NGN",
  });
  assert.equal(r.body.handled, true);
  return p.id;
}

test("payment.initiate (provider_b): initialize transaction; charge.success by a signed webhook; forged and replayed ones change nothing", async () => {
  const tenant = "paystack-co";
  const p = await t.call(
    "payment.initiate",
    {
      amount: 1500.5,
      currency: "NGN",
      provider: "provider_b",
      customerEmail: "payer@example.com",
      callbackUrl: "https://app.example.com/cb",
    },
    { tenant },
  );
  assert.equal(p.mode, "live");
  assert.equal(p.status, "pending");
  assert.equal(p.providerReference, p.id);
  assert.equal(p.checkoutUrl, `https://checkout.paystack.com/${p.id.toLowerCase()}`);
  const init = ps.requests.find((r) => r.path === "/transaction/initialize");
  assert.deepEqual(
    {
      email: init?.body.email,
      amount: init?.body.amount,
      currency: init?.body.currency,
      reference: init?.body.reference,
      subaccount: init?.body.subaccount,
      callback_url: init?.body.callback_url,
    },
    {
      email: "payer@example.com",
      amount: 150050,
      currency: "NGN",
      reference: p.id,
      subaccount: undefined, // routed to a subaccount only by a recipientId of the tenant's own (settlement.test.ts)
      callback_url: "https://app.example.com/cb",
    },
  );
  // `abandoned` at Paystack (the payer has not paid): still pending.
  assert.equal((await t.call("payment.status", { id: p.id }, { tenant })).status, "pending");

  const tx = ps.transactions.get(p.id);
  assert.ok(tx);
  const data = { id: tx.id, reference: p.id, status: "success", amount: 150050, currency: "NGN" };
  const forged = await deliver("charge.success", data, "sk_wrong");
  assert.equal(forged.status, 400);
  const unsigned = await postWebhook(t, "provider_b", JSON.stringify({ event: "charge.success", data }), {});
  assert.equal(unsigned.status, 400);
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "pending");

  assert.deepEqual((await deliver("charge.success", data)).body, { received: true, handled: true, duplicate: false });
  assert.equal((await deliver("charge.success", data)).body.duplicate, true);
  const s = await t.call("payment.status", { id: p.id }, { tenant });
  assert.equal(s.status, "succeeded");
  assert.deepEqual(
    s.history.map((h: any) => [h.to, h.source, h.providerEventId]),
    [
      ["pending", "api", null],
      ["succeeded", "webhook", `charge.success:${tx.id}`],
    ],
  );

  // Polling converges too: a failed charge is seen by payment.status.
  const declined = await t.call(
    "payment.initiate",
    { amount: 10, currency: "NGN", provider: "provider_b", customerEmail: "x@example.com" },
    { tenant },
  );
  const dtx = ps.transactions.get(declined.id);
  assert.ok(dtx);
  dtx.status = "failed";
  const d = await t.call("payment.status", { id: declined.id }, { tenant });
  assert.equal(d.status, "failed");
  assert.equal(d.failureMessage, "Declined");
});

test("payout.verify_account (provider_b): bank/resolve gives the holder's name, a transfer recipient is registered; unresolvable numbers are 400", async () => {
  const tenant = "paystack-verify";
  const r = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058", accountName: "Ada Obi" },
    { tenant },
  );
  assert.equal(r.accountName, "ADA OBI");
  assert.equal(r.nameMatch, "match");
  assert.equal(r.bankName, "Guaranty Trust Bank");
  assert.equal(r.providerReference, "RCP_0123456789");
  assert.equal(r.mode, "live");
  const recipientCall = ps.requests.find((x) => x.path === "/transferrecipient");
  assert.deepEqual(recipientCall?.body, {
    type: "nuban",
    name: "ADA OBI",
    account_number: "0123456789",
    bank_code: "058",
    currency: "NGN",
  });
  await assert.rejects(
    t.call(
      "payout.verify_account",
      { country: "NG", currency: "NGN", accountNumber: "1111111111", bankCode: "058" },
      { tenant },
    ),
    (err: any) => err.code === "validation_failed" && err.details[0].code === "account_unresolved",
  );
});

test("payouts (provider_b): transfer → processing → paid by webhook; 20 concurrent identical sends make one transfer; balance reconciled", async () => {
  const tenant = "paystack-payouts";
  await fundNgn(tenant, 1000);
  const r = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058" },
    { tenant },
  );
  const input = { recipientId: r.id, amount: 300, currency: "NGN", description: "Refund", idempotencyKey: "refund-7" };
  const before = ps.requests.filter((x) => x.path === "/transfer").length;
  const sends = await Promise.all(Array.from({ length: 20 }, () => t.call("payout.send", input, { tenant })));
  assert.equal(new Set(sends.map((s) => s.id)).size, 1);
  assert.equal(ps.requests.filter((x) => x.path === "/transfer").length - before, 1);
  const po =
    sends.find((s) => s.status === "processing") ?? (await t.call("payout.status", { id: sends[0].id }, { tenant }));
  assert.equal(po.status, "processing");
  const transfer = ps.transfers.get(po.id);
  assert.ok(transfer);
  assert.deepEqual(
    { amount: transfer.amount, recipient: transfer.recipient, currency: transfer.currency },
    { amount: 30000, recipient: "RCP_0123456789", currency: "NGN" },
  );
  assert.equal((await t.call("payout.status", { id: po.id }, { tenant })).status, "processing");

  const bal = await t.call("payout.balance", { currency: "NGN" }, { tenant });
  assert.equal(bal.balances[0].available.minor, 70000);
  assert.equal(bal.balances[0].reserved.minor, 30000);
  assert.equal(bal.balances[0].provider.minor, ps.balance.get("NGN"));
  assert.equal(bal.balances[0].reconciled, false);

  transfer.status = "success";
  const paid = await deliver("transfer.success", {
    id: transfer.id,
    reference: po.id,
    status: "success",
    amount: 30000,
    currency: "NGN",
  });
  assert.equal(paid.body.handled, true);
  const after = await t.call("payout.status", { id: po.id }, { tenant });
  assert.equal(after.status, "paid");
  assert.equal((await t.call("payout.balance", { currency: "NGN" }, { tenant })).balances[0].reserved.minor, 0);

  // The bank returns it: transfer.reversed moves paid → reversed and the money is available again.
  transfer.status = "reversed";
  await deliver("transfer.reversed", {
    id: transfer.id,
    reference: po.id,
    status: "reversed",
    amount: 30000,
    currency: "NGN",
  });
  assert.equal((await t.call("payout.status", { id: po.id }, { tenant })).status, "reversed");
  assert.equal((await t.call("payout.balance", { currency: "NGN" }, { tenant })).balances[0].available.minor, 100000);
});

test("payout.batch (provider_b): one bulk transfer; the closed account fails on its own; the batch ends partially_failed", async () => {
  const tenant = "paystack-batch";
  await fundNgn(tenant, 500);
  const ada = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058" },
    { tenant },
  );
  const tunde = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0987654321", bankCode: "058" },
    { tenant },
  );
  const before = ps.requests.filter((x) => x.path === "/transfer/bulk").length;
  const b = await t.call(
    "payout.batch",
    {
      items: [
        { recipientId: ada.id, amount: 150, currency: "NGN", reference: "comm-ada" },
        { recipientId: tunde.id, amount: 225, currency: "NGN", reference: "comm-tunde" },
      ],
      description: "May commissions",
      idempotencyKey: "may",
    },
    { tenant },
  );
  assert.equal(ps.requests.filter((x) => x.path === "/transfer/bulk").length - before, 1);
  assert.equal(b.status, "processing");
  assert.deepEqual(
    b.items.map((i: any) => i.status),
    ["processing", "failed"],
  );
  const adaItem = b.items[0];
  const tr = ps.transfers.get(adaItem.id);
  assert.ok(tr);
  tr.status = "success";
  // Polling the batch converges on the provider's state.
  const done = await t.call("payout.status", { id: b.id }, { tenant });
  assert.equal(done.status, "partially_failed");
  assert.ok(done.completed);
  assert.deepEqual(done.counts, { total: 2, pending: 0, processing: 0, paid: 1, failed: 1, cancelled: 0, reversed: 0 });
  // The webhook arriving after the poll changes nothing.
  const late = await deliver("transfer.success", {
    id: tr.id,
    reference: adaItem.id,
    status: "success",
    amount: 15000,
    currency: "NGN",
  });
  assert.equal(late.status, 200);
  assert.equal((await t.call("payout.status", { id: b.id }, { tenant })).counts.paid, 1);
  assert.equal((await t.call("payout.balance", { currency: "NGN" }, { tenant })).balances[0].available.minor, 35000);
});

test("provider_b failing: a payout whose send failed stays pending (reserved) and is sent by the next payout.status; a refused initialize fails the payment", async () => {
  const tenant = "paystack-outage";
  await fundNgn(tenant, 100);
  const r = await t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058" },
    { tenant },
  );
  ps.failNext.add("/transfer");
  const po = await t.call(
    "payout.send",
    { recipientId: r.id, amount: 40, currency: "NGN", idempotencyKey: "outage-1" },
    { tenant },
  );
  assert.equal(po.status, "pending");
  assert.equal(ps.transfers.has(po.id), false);
  assert.equal((await t.call("payout.balance", { currency: "NGN" }, { tenant })).balances[0].reserved.minor, 4000);
  // The retry of the same call is a replay: it sends nothing.
  assert.equal(
    (
      await t.call(
        "payout.send",
        { recipientId: r.id, amount: 40, currency: "NGN", idempotencyKey: "outage-1" },
        { tenant },
      )
    ).status,
    "pending",
  );
  assert.equal(ps.transfers.has(po.id), false);
  const refreshed = await t.call("payout.status", { id: po.id }, { tenant });
  assert.equal(refreshed.status, "processing");
  assert.equal(ps.transfers.get(po.id)?.reference, po.id);

  ps.failNext.add("/transaction/initialize");
  await assert.rejects(
    t.call(
      "payment.initiate",
      {
        amount: 5,
        currency: "NGN",
        provider: "provider_b",
        customerEmail: "p@example.com",
        idempotencyKey: "init-down",
      },
      { tenant },
    ),
    { code: "upstream_failed" },
  );
  const failed = (await t.call("payment.list", { status: "failed" }, { tenant })).items;
  assert.equal(failed.length, 1);
  assert.equal(failed[0].failureCode, "provider_error");
});
