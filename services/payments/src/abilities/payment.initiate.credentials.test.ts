/**
 * Whose provider account is used, with the connections service running (its CredentialResolver
 * RPC): a platform account configured in connections for provider_b is used instead of this
 * service's own key, results say `credentialSource: platform`; with connections unreachable a live
 * provider is refused with 503 (never a guessed account), and nothing is recorded.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ServiceHarness, startService } from "@gantry/infra/testing/service.ts";
import { type PaymentsTest, startPayments } from "../test/helpers.ts";
import { type PaystackServer, startPaystack } from "../test/paystack-server.ts";

const PLATFORM_KEY = "sk_test_platform_from_connections";
let ps: PaystackServer;
let connections: ServiceHarness<unknown> | undefined;
let t: PaymentsTest;

before(async () => {
  ps = await startPaystack(PLATFORM_KEY);
  connections = await startService("connections", {
    CONNECTIONS_PLATFORM_ACCOUNTS: JSON.stringify({ provider_b: { secret_key: PLATFORM_KEY } }),
  });
  t = await startPayments({
    PAYMENTS_TENANT_CREDENTIALS: "true",
    CONNECTIONS_ADDR: `127.0.0.1:${connections.port}`,
    PAYMENTS_PROVIDER_B_URL: ps.url,
    // Not the key the provider accepts: a success proves the connections service's answer was used.
    PAYMENTS_PROVIDER_B_SECRET_KEY: "sk_test_env_key_not_accepted",
  });
});
after(async () => {
  await t?.stop();
  await connections?.stop();
  await ps?.stop();
});

test("the platform account from the connections service is used when the tenant has no connection", async () => {
  const p = await t.call(
    "payment.initiate",
    { amount: 25, currency: "NGN", provider: "provider_b", customerEmail: "payer@example.com" },
    { tenant: "cred-co" },
  );
  assert.equal(p.mode, "live");
  assert.equal(p.credentialSource, "platform");
  assert.equal(ps.transactions.get(p.id)?.amount, 2500);
  // provider_a is not configured here: the sandbox, without asking anyone.
  const a = await t.call("payment.initiate", { amount: 25, currency: "USD" }, { tenant: "cred-co" });
  assert.equal(a.mode, "sandbox");
});

test("connections unreachable: a live provider is refused with 503 and nothing is recorded", async () => {
  await connections?.stop();
  connections = undefined;
  await assert.rejects(
    t.call(
      "payment.initiate",
      { amount: 25, currency: "NGN", provider: "provider_b", customerEmail: "p@example.com" },
      { tenant: "cred-down" },
    ),
    { code: "unavailable" },
  );
  const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM payments.payments WHERE tenant = 'cred-down'`);
  assert.equal(rows[0].n, 0);
});
