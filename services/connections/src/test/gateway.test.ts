/**
 * The consent flow through the whole stack (gateway + keys + connections as separate processes, real
 * API keys, results checked against the catalogue by the gateway): the principal that completes a
 * consent is the key the gateway authenticated, so a second key of the same tenant is refused; every
 * ability of the area answers (none 501); a Stripe tool runs through the gateway against stripe-mock
 * with the Idempotency-Key header; the CredentialResolver answers the tenant's token over gRPC; a
 * GitHub account connects with a personal access token though the stack has no OAuth app for GitHub
 * (checked with the GitHub stand-in, which answers only that token) and runs a tool; no token, key,
 * code or state reaches any process's log.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { loadCallKeys, makeClient } from "@gantry/kit";
import { CONNECTIONS_PROTO } from "@gantry/proto/paths";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { type AuthServer, startAuthServer } from "./auth-server.ts";
import { type GithubApi, STRIPE_MOCK_SKIP, type StripeMock, startGithubApi, startStripeMock } from "./providers.ts";

let t: TestStack;
let auth: AuthServer;
let alice: string;
let bob: string;
let beta: string;
let stripe: StripeMock | null;
let github: GithubApi;
const STRIPE_KEY = "sk_test_51GatewayTestKeyNotARealOne987654321";

before(async () => {
  auth = await startAuthServer();
  stripe = await startStripeMock();
  github = await startGithubApi();
  t = await startTestStack({
    services: ["keys", "connections"],
    healthTimeoutMs: 120_000,
    env: {
      CONNECTIONS_ALLOW_HTTP_LOOPBACK: "true",
      CONNECTIONS_PROVIDERS: JSON.stringify({ payments: auth.providerConfig() }),
      CONNECTIONS_TOOLKIT_BASE_URLS: JSON.stringify({ github: github.url, ...(stripe ? { stripe: stripe.url } : {}) }),
      LOG_LEVEL: "debug",
    },
  });
  [alice, bob, beta] = (
    await Promise.all([
      t.insertKey({ tenant: "acme", name: "alice" }),
      t.insertKey({ tenant: "acme", name: "bob" }),
      t.insertKey({ tenant: "beta", name: "beta" }),
    ])
  ).map((k) => k.key);
});
after(async () => {
  await t?.stop();
  await auth?.stop();
  await stripe?.stop();
  await github?.stop();
});

async function ok(ability: string, input: unknown, key: string): Promise<any> {
  const res = await t.call(ability, { input }, key);
  assert.equal(res.status, 200, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

test("start → consent at the provider → complete through the gateway; only the key that started may complete", async () => {
  const started = await ok("connection.authorize", { service: "payments" }, alice);
  const redirect = await auth.consent(started.authorizationUrl);
  const complete = {
    action: "complete",
    connectionId: started.connection.id,
    state: started.state,
    sessionUri: redirect,
  };

  const byBob = await t.call("connection.authorize", { input: complete }, bob);
  assert.equal(byBob.status, 403, JSON.stringify(byBob.body));
  assert.equal(byBob.body.details[0].path, "/input/state");
  const byBeta = await t.call("connection.authorize", { input: complete }, beta);
  assert.equal(byBeta.status, 404);
  assert.equal(byBeta.body.details[0].path, "/input/connectionId");

  const done = await ok("connection.authorize", complete, alice);
  assert.equal(done.connection.status, "connected");
  assert.match(done.connection.principalId, /^key_/);
  const again = await t.call("connection.authorize", { input: complete }, alice);
  assert.equal(again.status, 409);

  // What payments and content get over gRPC from the connections process: the tenant's token.
  const client = makeClient(
    CONNECTIONS_PROTO,
    "gantry.connections.v1.CredentialResolver",
    t.stack.env.CONNECTIONS_ADDR,
    {
      signer: loadCallKeys("payments", t.stack.env).signer("connections"),
    },
  );
  const resolved = await client.unary("ResolveCredential", {
    tenant: "acme",
    service: "payments",
  });
  client.close();
  assert.equal(resolved.credential_source, "tenant");
  assert.equal(resolved.connection_id, started.connection.id);
  assert.equal(await auth.userinfo(resolved.access_token), 200);

  // Any key of the tenant reads and lists it; another tenant does not see it.
  const got = await ok("connection.get", { service: "payments" }, bob);
  assert.equal(got.credentialSource, "tenant");
  assert.equal(got.connection.id, started.connection.id);
  const listed = await ok("connection.list", {}, bob);
  assert.equal(listed.items.length, 1);
  assert.deepEqual((await ok("connection.list", {}, beta)).items, []);

  const revoked = await ok("connection.revoke", { service: "payments" }, bob);
  assert.equal(revoked.connection.status, "revoked");
  assert.equal(revoked.credentialSource, "none");

  // No token or code in any process's output (the service logs at debug level here).
  const code = new URL(redirect).searchParams.get("code") as string;
  const logs = t.stack.logs();
  assert.ok(logs.includes("connections"), "logs were captured");
  assert.ok(!logs.includes(code), "the authorization code appears in the logs");
  assert.ok(!logs.includes(started.state), "the state appears in the logs");
  assert.ok(!logs.includes(resolved.access_token), "the access token appears in the logs");
});

test("every connection and integration ability is wired: none answers 501", async () => {
  const cases: Array<[string, unknown, number]> = [
    ["integration.app.connect", { toolkit: "stripe" }, 400], // no credentials
    ["integration.app.connections", {}, 200],
    ["integration.app.execute", { tool: "GITHUB_CREATE_ISSUE", arguments: {} }, 404], // no github account
    [
      "integration.execute",
      { connectionId: "con_01AAAAAAAAAAAAAAAAAAAAAAAA", toolId: "github.create_issue@1", arguments: {} },
      400, // arguments miss owner, repo, title
    ],
    ["integration.search", { connectionId: "con_01AAAAAAAAAAAAAAAAAAAAAAAA" }, 404],
    ["integration.search", { action: "connections" }, 200],
    [
      "connection.authorize",
      { action: "share", connectionId: "con_01AAAAAAAAAAAAAAAAAAAAAAAA", principalId: "key_x", toolIds: ["a.b@1"] },
      404,
    ],
    ["integration.app.toolkits", {}, 200],
    ["integration.app.tools", { toolkit: "github" }, 200],
  ];
  for (const [ability, input, status] of cases) {
    const res = await t.call(ability, { input }, alice);
    assert.equal(res.status, status, `${ability} → ${res.status} ${JSON.stringify(res.body)}`);
  }
});

test("a Stripe tool through the gateway (stripe-mock): Idempotency-Key replays, the key is in no log", {
  skip: STRIPE_MOCK_SKIP,
}, async () => {
  const connected = await ok(
    "integration.app.connect",
    { toolkit: "stripe", credentials: { secret_key: STRIPE_KEY } },
    alice,
  );
  const input = {
    connectionId: connected.connection.id,
    toolId: "stripe.create_refund@1",
    arguments: { charge: "ch_gateway", amount: 1200 },
  };
  const first = await t.call("integration.execute", { input }, alice).set("Idempotency-Key", "refund-gw-1");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.result.body.object, "refund");
  const again = await t.call("integration.execute", { input }, alice).set("Idempotency-Key", "refund-gw-1");
  assert.equal(again.status, 200);
  assert.equal(again.headers["idempotent-replayed"], "true");
  assert.equal(again.body.result.body.id, first.body.result.body.id);
  // Bob (same tenant, another key) has no share: 403.
  const byBob = await t.call("integration.execute", { input }, bob);
  assert.equal(byBob.status, 403);
  const logs = t.stack.logs();
  assert.ok(logs.includes("tool executed"), "the execution was logged");
  assert.ok(!logs.includes(STRIPE_KEY), "the Stripe secret key appears in the logs");
});

test("no OAuth app for GitHub: a personal access token connects through the gateway and runs a tool; it is in no log", async () => {
  const TOKEN = "ghp_GatewayTokenTestNotARealOne0123456789ab";
  const WRONG = "ghp_GatewayTokenTestNotARealOne0123456789zz";
  github.token = TOKEN;
  const none = await t.call("integration.app.connect", { input: { toolkit: "github" } }, bob);
  assert.equal(none.status, 400, JSON.stringify(none.body));
  assert.equal(none.body.details[0].path, "/input/token");
  assert.match(none.body.error, /personal access token/);

  const wrong = await t.call("integration.app.connect", { input: { toolkit: "github", token: WRONG } }, bob);
  assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
  assert.equal(wrong.body.details[0].code, "provider_refused");
  assert.match(wrong.body.error, /refused by GitHub \(HTTP 401/);

  const input = { toolkit: "github", token: TOKEN };
  const first = await t.call("integration.app.connect", { input }, bob).set("Idempotency-Key", "gh-token-1");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.result.connection.status, "connected");
  assert.equal(first.body.result.connection.authScheme, "token");
  assert.equal(first.body.result.connection.externalRef, github.user.login);
  const again = await t.call("integration.app.connect", { input }, bob).set("Idempotency-Key", "gh-token-1");
  assert.equal(again.headers["idempotent-replayed"], "true");
  assert.equal(again.body.result.connection.id, first.body.result.connection.id);
  assert.ok(!JSON.stringify(first.body).includes(TOKEN), "the token is in the result");

  const repo = await ok(
    "integration.app.execute",
    { tool: "GITHUB_GET_REPO", arguments: { owner: "acme", repo: "widgets" } },
    bob,
  );
  assert.equal(repo.status, 200, JSON.stringify(repo.body));
  assert.equal(repo.body.full_name, "acme/widgets");

  const logs = t.stack.logs();
  assert.ok(logs.includes("tool executed"), "the execution was logged");
  assert.ok(!logs.includes(TOKEN), "the token appears in the logs");
  assert.ok(!logs.includes(WRONG), "the refused token appears in the logs");
});
