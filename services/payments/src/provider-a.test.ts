/**
 * provider_a against Stripe's own stripe-mock: a Checkout Session as the payment link, a payment
 * from initiate to succeeded through a signed webhook (Stripe-Signature), forged, stale and unsigned
 * webhooks refused, a replayed event changing nothing, polling never moving a status backwards,
 * payouts and the balance reconciled against the provider's, and the ledger balancing to zero.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { assertLedgerBalanced, type PaymentsTest, postWebhook, startPayments } from "./test/helpers.ts";
import { STRIPE_MOCK_SKIP, startStripeMock } from "./test/stripe-mock.ts";

const SECRET = "whsec_test_gantry_payments";
const stripe = new Stripe("sk_test_123");
let mock: Awaited<ReturnType<typeof startStripeMock>> | undefined;
let t: PaymentsTest;
let proxy: Server | undefined;
/** What the service sent to "Stripe", as Stripe receives it (a recording proxy before stripe-mock). */
const seen: Array<{ method: string; path: string; headers: Record<string, unknown>; body: string }> = [];

async function startProxy(target: string): Promise<string> {
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
    ) as Record<string, string>;
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" ? undefined : body,
    });
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(await upstream.text());
  });
  await new Promise<void>((r) => proxy?.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

before(async () => {
  if (STRIPE_MOCK_SKIP) return;
  mock = await startStripeMock();
  t = await startPayments({
    PAYMENTS_PROVIDER_A_URL: await startProxy(mock.url),
    PAYMENTS_APPLICATION_FEE_BPS: "250",
    PAYMENTS_PROVIDER_A_SECRET_KEY: "sk_test_123",
    PAYMENTS_PROVIDER_A_WEBHOOK_SECRET: SECRET,
    PAYMENTS_PAYOUT_PROVIDER: "provider_a",
  });
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
  await new Promise((r) => (proxy ? proxy.close(r) : r(undefined)));
  await mock?.stop();
});

function event(
  type: string,
  object: Record<string, unknown>,
  id = `evt_${Math.random().toString(36).slice(2)}`,
  extra: Record<string, unknown> = {},
) {
  return JSON.stringify({
    id,
    object: "event",
    ...extra,
    type,
    api_version: "2025-01-01",
    created: Math.floor(Date.now() / 1000),
    data: { object },
  });
}

async function deliver(payload: string, signature?: string): Promise<{ status: number; body: any }> {
  return postWebhook(t, "provider_a", payload, {
    "content-type": "application/json",
    ...(signature === undefined
      ? { "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }) }
      : signature
        ? { "stripe-signature": signature }
        : {}),
  });
}

test("payment.initiate (provider_a): a Checkout Session; a signed webhook moves it to succeeded; polling cannot move it back", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  const tenant = "stripe-co";
  const p = await t.call(
    "payment.initiate",
    { amount: 49.99, currency: "USD", description: "Invoice 42", idempotencyKey: "inv-42" },
    { tenant },
  );
  assert.equal(p.mode, "live");
  assert.equal(p.provider, "provider_a");
  assert.equal(p.credentialSource, "platform");
  assert.equal(p.status, "pending");
  assert.match(p.providerReference, /^cs_/);
  assert.match(p.checkoutUrl, /^https:\/\/checkout\.stripe\.com\//);
  // stripe-mock's session is `open`: still pending.
  assert.equal((await t.call("payment.status", { id: p.id }, { tenant })).status, "pending");

  const session = {
    id: p.providerReference,
    object: "checkout.session",
    status: "complete",
    payment_status: "paid",
    amount_total: 4999,
    currency: "usd",
    metadata: { gantry_payment_id: p.id },
  };
  const payload = event("checkout.session.completed", session, "evt_paid_1");

  // Forged (another secret), stale (an hour old) and unsigned deliveries are refused and change nothing.
  const forged = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_attacker" });
  assert.equal((await deliver(payload, forged)).status, 400);
  const stale = stripe.webhooks.generateTestHeaderString({
    payload,
    secret: SECRET,
    timestamp: Math.floor(Date.now() / 1000) - 3600,
  });
  assert.equal((await deliver(payload, stale)).status, 400);
  assert.equal((await deliver(payload, "")).status, 400);
  const tampered = payload.replace("paid", "unpaid");
  assert.equal(
    (await deliver(tampered, stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }))).status,
    400,
  );
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "pending");

  const ok = await deliver(payload);
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { received: true, handled: true, duplicate: false });
  const replay = await deliver(payload);
  assert.equal(replay.status, 200);
  assert.equal(replay.body.duplicate, true);

  // Polling reads `open` from the provider again: forward only, the payment stays succeeded.
  const s = await t.call("payment.status", { id: p.id }, { tenant });
  assert.equal(s.status, "succeeded");
  assert.deepEqual(
    s.history.map((h: any) => [h.from, h.to, h.source, h.providerEventId]),
    [
      [null, "pending", "api", null],
      ["pending", "succeeded", "webhook", "evt_paid_1"],
    ],
  );
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM payments.ledger_entries WHERE ref_id = $1`, [p.id]);
  assert.equal(rows[0].n, 4); // received + settled, two lines each, once

  // An event about a payment we do not hold is acknowledged and ignored.
  const stranger = await deliver(event("checkout.session.completed", { ...session, id: "cs_other", metadata: {} }));
  assert.deepEqual(stranger.body, { received: true, handled: false });
});

test("payouts (provider_a): verify, send (Stripe payout in transit → processing), paid by webhook; balance reconciled against the provider", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  const tenant = "stripe-payouts";
  const p = await t.call("payment.initiate", { amount: 30, currency: "USD" }, { tenant });
  await deliver(
    event("checkout.session.completed", {
      id: p.providerReference,
      object: "checkout.session",
      status: "complete",
      payment_status: "paid",
      amount_total: 3000,
      currency: "usd",
      metadata: { gantry_payment_id: p.id },
    }),
  );

  const r = await t.call(
    "payout.verify_account",
    { country: "US", currency: "USD", accountNumber: "000123456789", bankCode: "110000000", accountName: "Ada Obi" },
    { tenant },
  );
  assert.equal(r.provider, "provider_a");
  assert.equal(r.mode, "live");
  assert.equal(r.nameMatch, null); // Stripe does not confirm holder names
  assert.equal(r.accountNumberLast4, "6789");

  const po = await t.call(
    "payout.send",
    { recipientId: r.id, amount: 10, currency: "USD", idempotencyKey: "po-1" },
    { tenant },
  );
  assert.equal(po.status, "processing");
  assert.match(po.providerReference, /^po_/);
  const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
  assert.equal(bal.mode, "live");
  assert.equal(bal.balances[0].available.minor, 2000);
  assert.equal(bal.balances[0].reserved.minor, 1000);
  // stripe-mock's balance is 0 USD: the ledger does not agree, and says so.
  assert.deepEqual(bal.balances[0].provider, { amount: 0, currency: "USD", minor: 0 });
  assert.equal(bal.balances[0].reconciled, false);

  const payoutObject = {
    id: po.providerReference,
    object: "payout",
    status: "paid",
    amount: 1000,
    currency: "usd",
    metadata: { gantry_payout_id: po.id },
  };
  // A payout event whose amount or currency is not the payout's is refused.
  assert.equal((await deliver(event("payout.paid", { ...payoutObject, amount: 10 }))).body.handled, false);
  assert.equal((await deliver(event("payout.paid", { ...payoutObject, currency: "eur" }))).body.handled, false);
  assert.equal((await t.call("payout.list", { status: "paid" }, { tenant })).items.length, 0);
  const paid = await deliver(event("payout.paid", payoutObject));
  assert.equal(paid.body.handled, true);
  const list = await t.call("payout.list", { status: "paid" }, { tenant });
  assert.deepEqual(
    list.items.map((x: any) => x.id),
    [po.id],
  );
  assert.equal((await t.call("payout.balance", { currency: "USD" }, { tenant })).balances[0].reserved.minor, 0);
  // A later `failed` for the paid payout cannot move it back.
  await deliver(event("payout.failed", { ...payoutObject, status: "failed" }));
  assert.equal((await t.call("payout.list", { status: "paid" }, { tenant })).items.length, 1);
});

test("a tenant connected to provider_a: a direct charge on its account (Stripe-Account) with the platform's application fee, booked", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  const tenant = "connected-co";
  // The connections service's answer for a tenant with a Stripe Connect connection (its RPC itself
  // is exercised in credentials.test.ts); everything after it is real.
  t.ctx.resolver = {
    resolve: async (forTenant, service) => {
      assert.equal(forTenant, tenant);
      assert.equal(service, "provider_a");
      return {
        credential_source: "tenant",
        service,
        connection_id: "con_1",
        auth_scheme: "oauth2",
        access_token: "sk_connected_token",
        token_type: "bearer",
        expires_at_ms: 0,
        scopes: [],
        external_ref: "acct_1TenantConnected",
        credentials: {},
        connection_status: "connected",
      };
    },
    close: () => {},
  };
  try {
    const p = await t.call("payment.initiate", { amount: 50, currency: "USD" }, { tenant });
    assert.equal(p.credentialSource, "tenant");
    assert.deepEqual(p.applicationFee, { amount: 1.25, currency: "USD", minor: 125 });
    const sent = seen.filter((r) => r.method === "POST" && r.path === "/v1/checkout/sessions").at(-1);
    assert.ok(sent);
    assert.equal(sent.headers["stripe-account"], "acct_1TenantConnected");
    assert.equal(sent.headers["idempotency-key"], p.id);
    assert.equal(sent.headers.authorization, "Bearer sk_test_123"); // the platform key, on the tenant's behalf
    const form = new URLSearchParams(sent.body);
    assert.equal(form.get("payment_intent_data[application_fee_amount]"), "125");
    assert.equal(form.get("line_items[0][price_data][unit_amount]"), "5000");

    const session = {
      id: p.providerReference,
      object: "checkout.session",
      status: "complete",
      payment_status: "paid",
      amount_total: 5000,
      currency: "usd",
      metadata: { gantry_payment_id: p.id },
    };
    // A Connect event carries the account it happened on: only the tenant's own account settles it.
    const unattributed = await deliver(event("checkout.session.completed", session));
    assert.equal(unattributed.body.handled, false);
    const elsewhere = await deliver(
      event("checkout.session.completed", session, undefined, { account: "acct_1Other" }),
    );
    assert.equal(elsewhere.body.handled, false);
    assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "pending");
    const ok = await deliver(
      event("checkout.session.completed", session, undefined, { account: "acct_1TenantConnected" }),
    );
    assert.equal(ok.body.handled, true);
    // 50.00 received, 1.25 to the platform: 48.75 available, read from the tenant's own account.
    const bal = await t.call("payout.balance", { currency: "USD" }, { tenant });
    assert.equal(bal.credentialSource, "tenant");
    assert.equal(bal.balances[0].available.minor, 4875);
    assert.equal(
      seen.filter((r) => r.path === "/v1/balance").at(-1)?.headers["stripe-account"],
      "acct_1TenantConnected",
    );
    const { rows } = await t.db.query(
      `SELECT account, amount_minor::int AS minor FROM payments.ledger_entries WHERE journal_id = $1 ORDER BY account`,
      [`${p.id}:application_fee`],
    );
    assert.deepEqual(rows, [
      { account: "available", minor: -125 },
      { account: "fees", minor: 125 },
    ]);

    // Paid out from where the money is: a payout on the connected account (Stripe-Account).
    const rcp = await t.call(
      "payout.verify_account",
      { country: "US", currency: "USD", accountNumber: "000123456789", bankCode: "110000000", accountName: "Ada Obi" },
      { tenant },
    );
    const po = await t.call(
      "payout.send",
      { recipientId: rcp.id, amount: 40, currency: "USD", idempotencyKey: "conn-po-1" },
      { tenant },
    );
    assert.equal(po.status, "processing");
    assert.equal(
      seen.filter((r) => r.method === "POST" && r.path === "/v1/payouts").at(-1)?.headers["stripe-account"],
      "acct_1TenantConnected",
    );
    const payout = {
      id: po.providerReference,
      object: "payout",
      status: "paid",
      amount: 4000,
      currency: "usd",
      metadata: { gantry_payout_id: po.id },
    };
    // Its events come from that account; the same payout reported by the platform's own is refused.
    assert.equal((await deliver(event("payout.paid", payout))).body.refused, "account_mismatch");
    const paidThere = await deliver(event("payout.paid", payout, undefined, { account: "acct_1TenantConnected" }));
    assert.equal(paidThere.body.handled, true);
    assert.equal((await t.call("payout.balance", { currency: "USD" }, { tenant })).balances[0].available.minor, 875);
  } finally {
    t.ctx.resolver = null;
  }
  // The connection is gone: payouts would go from the platform's account, which never received
  // this money. Refused, nothing sent.
  const r = await t.call(
    "payout.verify_account",
    { country: "US", currency: "USD", accountNumber: "000123456789", bankCode: "110000000", accountName: "Ada Obi" },
    { tenant },
  );
  const sentBefore = seen.filter((x) => x.path === "/v1/payouts").length;
  await assert.rejects(
    t.call("payout.send", { recipientId: r.id, amount: 10, currency: "USD", idempotencyKey: "conn-1" }, { tenant }),
    (err: any) => {
      assert.equal(err.code, "conflict");
      assert.equal(err.details[0].code, "insufficient_balance");
      return true;
    },
  );
  assert.equal(seen.filter((x) => x.path === "/v1/payouts").length, sentBefore);
});

test("Stripe webhooks: the event's account, amount and currency must be the stored payment's; a mismatch is refused, never credited", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  const tenant = "stripe-checks";
  const p = await t.call("payment.initiate", { amount: 20, currency: "USD" }, { tenant });
  const session = {
    id: p.providerReference,
    object: "checkout.session",
    status: "complete",
    payment_status: "paid",
    amount_total: 2000,
    currency: "usd",
    metadata: { gantry_payment_id: p.id },
  };
  for (const [object, extra] of [
    [session, { account: "acct_1Attacker" }], // another connected account's session naming our payment
    [{ ...session, amount_total: 1 }, {}],
    [{ ...session, currency: "eur" }, {}],
    [{ ...session, amount_total: undefined }, {}],
  ] as const) {
    const r = await deliver(event("checkout.session.completed", object, undefined, extra));
    assert.equal(r.status, 200);
    assert.equal(r.body.handled, false);
    assert.match(r.body.refused, /^(account|amount|currency)_mismatch$/);
  }
  const refund = {
    id: "ch_1",
    object: "charge",
    refunded: true,
    amount: 2000,
    currency: "usd",
    metadata: { gantry_payment_id: p.id },
  };
  assert.equal(
    (await deliver(event("charge.refunded", refund, undefined, { account: "acct_1Attacker" }))).body.handled,
    false,
  );
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "pending");
  for (const b of (await t.call("payout.balance", {}, { tenant })).balances) {
    assert.deepEqual([b.available.minor, b.pending.minor], [0, 0]);
  }

  assert.equal((await deliver(event("checkout.session.completed", session))).body.handled, true);
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "succeeded");
});

test("a recipientId that is not the tenant's own connected account is refused: no destination charge to a stranger", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  const tenant = "stripe-destination";
  const before = seen.length;
  await assert.rejects(
    t.call("payment.initiate", { amount: 20, currency: "USD", recipientId: "acct_1Stranger" }, { tenant }),
    (err: any) => {
      assert.equal(err.code, "not_found");
      assert.equal(err.details[0].path, "/input/recipientId");
      return true;
    },
  );
  assert.equal(seen.length, before);
});
