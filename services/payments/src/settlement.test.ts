/**
 * Money is booked in the account it settled in, and paid out only from there (security issue 27,
 * item 2). provider_b is live (a local Paystack-speaking server that also accepts one tenant's own
 * key), provider_a is the sandbox; the connections service's answers are stood in for per tenant.
 *
 * - sandbox payments never fund live payouts;
 * - a `recipientId` must be the settlement account of the tenant's own connection;
 * - a payment routed to the tenant's subaccount is not platform money;
 * - a tenant's own Paystack account: its webhooks are verified with its key (not the platform's),
 *   and its money pays out only through it.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { GantryError, type ResolvedCredential } from "@gantry/kit";
import { assertLedgerBalanced, fund, type PaymentsTest, postWebhook, startPayments } from "./test/helpers.ts";
import { type PaystackServer, startPaystack } from "./test/paystack-server.ts";

const PLATFORM_KEY = "sk_test_platform_paystack";
const OWN_KEY = "sk_test_tenant_own_paystack";
let ps: PaystackServer;
let t: PaymentsTest;
/** `<tenant>/<service>` → the tenant's own connection, as the connections service would answer. */
const connections = new Map<string, Partial<ResolvedCredential>>();

before(async () => {
  ps = await startPaystack(PLATFORM_KEY, [OWN_KEY]);
  t = await startPayments({
    PAYMENTS_PROVIDER_B_URL: ps.url,
    PAYMENTS_PROVIDER_B_SECRET_KEY: PLATFORM_KEY,
    PAYMENTS_PAYOUT_PROVIDER: "provider_b",
  });
  t.ctx.resolver = {
    resolve: async (tenant, service) => {
      const own = connections.get(`${tenant}/${service}`);
      if (!own) throw new GantryError("not_found", `Tenant ${tenant} has no connection for ${service}.`);
      return {
        credential_source: "tenant",
        service,
        connection_id: "con_1",
        auth_scheme: "oauth2",
        access_token: "",
        token_type: "bearer",
        expires_at_ms: 0,
        scopes: [],
        external_ref: "",
        credentials: {},
        connection_status: "connected",
        ...own,
      };
    },
    close: () => {},
  };
});
after(async () => {
  if (t) await assertLedgerBalanced(t);
  await t?.stop();
  await ps?.stop();
});

async function deliver(event: string, data: object, secret: string): Promise<{ status: number; body: any }> {
  const { body, signature } = ps.signed(event, data, secret);
  return postWebhook(t, "provider_b", body, { "content-type": "application/json", "x-paystack-signature": signature });
}

const verifyAda = (tenant: string) =>
  t.call(
    "payout.verify_account",
    { country: "NG", currency: "NGN", accountNumber: "0123456789", bankCode: "058" },
    { tenant },
  );

const accounts = (bal: any) =>
  bal.balances.map((b: any) => [b.settlement.id, b.currency, b.available.minor, b.payoutSource]);

test("sandbox payments never fund live payouts: their money is in the sandbox account", async () => {
  const tenant = "mixed-co";
  // provider_a is not configured: a sandbox payment, which succeeds at its first refresh.
  await fund(t, tenant, 500, "NGN");
  const r = await verifyAda(tenant);
  assert.equal(r.mode, "live");
  await assert.rejects(
    t.call("payout.send", { recipientId: r.id, amount: 100, currency: "NGN", idempotencyKey: "mixed-1" }, { tenant }),
    (err: any) => {
      assert.equal(err.code, "conflict");
      assert.equal(err.details[0].code, "insufficient_balance");
      assert.equal(err.details[0].available.minor, 0);
      return true;
    },
  );
  // A batch draws on the same account.
  await assert.rejects(
    t.call(
      "payout.batch",
      { items: [{ recipientId: r.id, amount: 100, currency: "NGN" }], idempotencyKey: "mixed-batch" },
      { tenant },
    ),
    (err: any) => err.code === "conflict" && err.details[0].code === "insufficient_balance",
  );
  assert.equal(ps.requests.filter((x) => x.path === "/transfer" || x.path === "/transfer/bulk").length, 0);
  const bal = await t.call("payout.balance", {}, { tenant });
  assert.deepEqual(accounts(bal), [
    ["provider_b:platform", "NGN", 0, true],
    ["sandbox", "NGN", 50000, false],
  ]);
});

test("a recipientId that is not the tenant's own settlement account is refused, and nothing is recorded or sent", async () => {
  const tenant = "stranger-co";
  const before = ps.requests.length;
  await assert.rejects(
    t.call(
      "payment.initiate",
      {
        amount: 10,
        currency: "NGN",
        provider: "provider_b",
        customerEmail: "p@example.com",
        recipientId: "ACCT_someone_else",
      },
      { tenant },
    ),
    (err: any) => {
      assert.equal(err.code, "not_found");
      assert.equal(err.details[0].path, "/input/recipientId");
      assert.match(err.message, /recipientId/);
      return true;
    },
  );
  // Another tenant's subaccount is not this tenant's either.
  connections.set("owner-co/provider_b", { access_token: OWN_KEY, external_ref: "ACCT_owner" });
  await assert.rejects(
    t.call(
      "payment.initiate",
      {
        amount: 10,
        currency: "NGN",
        provider: "provider_b",
        customerEmail: "p@example.com",
        recipientId: "ACCT_owner",
      },
      { tenant },
    ),
    { code: "not_found" },
  );
  // The sandbox holds the same rule.
  await assert.rejects(t.call("payment.initiate", { amount: 10, currency: "USD", recipientId: "acct_x" }, { tenant }), {
    code: "not_found",
  });
  assert.equal(ps.requests.length, before);
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM payments.payments WHERE tenant = $1`, [tenant]);
  assert.equal(rows[0].n, 0);
});

test("a tenant's own Paystack account: its webhooks verified with its key, its money in its account and paid out through it", async () => {
  const tenant = "own-paystack-co";
  connections.set(`${tenant}/provider_b`, { access_token: OWN_KEY });
  const p = await t.call(
    "payment.initiate",
    { amount: 800, currency: "NGN", provider: "provider_b", customerEmail: "payer@example.com" },
    { tenant },
  );
  assert.equal(p.credentialSource, "tenant");
  assert.equal(
    ps.requests.find((x) => x.path === "/transaction/initialize" && x.body.reference === p.id)?.key,
    OWN_KEY,
  );
  const tx = ps.transactions.get(p.id);
  assert.ok(tx);
  const data = { id: tx.id, reference: p.id, status: "success", amount: 80000, currency: "NGN" };

  // The platform's account does not speak for the tenant's own (acknowledged, refused), and a
  // stranger's key is no signature at all.
  assert.deepEqual((await deliver("charge.success", data, PLATFORM_KEY)).body, {
    received: true,
    handled: false,
    refused: "account_mismatch",
  });
  assert.equal((await deliver("charge.success", data, "sk_test_stranger")).status, 400);
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "pending");
  // Signed by the tenant's key, with an amount that is not the payment's: refused, not credited.
  const short = await deliver("charge.success", { ...data, amount: 100 }, OWN_KEY);
  assert.equal(short.body.refused, "amount_mismatch");
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "pending");

  const ok = await deliver("charge.success", data, OWN_KEY);
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { received: true, handled: true, duplicate: false });
  assert.equal((await t.call("payment.list", {}, { tenant })).items[0].status, "succeeded");

  const bal = await t.call("payout.balance", { currency: "NGN" }, { tenant });
  assert.equal(bal.credentialSource, "tenant");
  assert.deepEqual(accounts(bal), [["provider_b:tenant", "NGN", 80000, true]]);
  assert.equal(bal.balances[0].settlement.holder, "tenant");

  // Paid out through the tenant's own account, from its money.
  const r = await verifyAda(tenant);
  const po = await t.call(
    "payout.send",
    { recipientId: r.id, amount: 300, currency: "NGN", idempotencyKey: "own-1" },
    { tenant },
  );
  assert.equal(po.status, "processing");
  assert.equal(ps.requests.find((x) => x.path === "/transfer" && x.body.reference === po.id)?.key, OWN_KEY);

  // Once the tenant disconnects, the platform's account holds none of that money.
  connections.delete(`${tenant}/provider_b`);
  const platformRecipient = await verifyAda(tenant);
  await assert.rejects(
    t.call(
      "payout.send",
      { recipientId: platformRecipient.id, amount: 100, currency: "NGN", idempotencyKey: "own-2" },
      { tenant },
    ),
    (err: any) => err.code === "conflict" && err.details[0].code === "insufficient_balance",
  );
});

test("a payment routed to the tenant's subaccount settles there: not platform money, not payable by the platform", async () => {
  const tenant = "subaccount-co";
  connections.set(`${tenant}/provider_b`, { access_token: OWN_KEY, external_ref: "ACCT_subco" });
  const p = await t.call(
    "payment.initiate",
    {
      amount: 1000,
      currency: "NGN",
      provider: "provider_b",
      customerEmail: "payer@example.com",
      recipientId: "ACCT_subco",
    },
    { tenant },
  );
  assert.equal(p.recipientId, "ACCT_subco");
  assert.equal(ps.transactions.get(p.id)?.subaccount, "ACCT_subco");
  const tx = ps.transactions.get(p.id);
  assert.ok(tx);
  tx.status = "success";
  assert.equal((await t.call("payment.status", { id: p.id }, { tenant })).status, "succeeded");

  const bal = await t.call("payout.balance", { currency: "NGN" }, { tenant });
  assert.deepEqual(accounts(bal), [
    ["provider_b:ACCT_subco", "NGN", 100000, false],
    ["provider_b:tenant", "NGN", 0, true],
  ]);
  const r = await verifyAda(tenant);
  await assert.rejects(
    t.call("payout.send", { recipientId: r.id, amount: 1, currency: "NGN", idempotencyKey: "sub-1" }, { tenant }),
    (err: any) => err.code === "conflict" && err.details[0].code === "insufficient_balance",
  );
});
