/**
 * The consent flow through the whole stack (gateway + keys + connections as separate processes, real
 * API keys, results checked against the catalogue by the gateway): the principal that completes a
 * consent is the key the gateway authenticated, so a second key of the same tenant is refused; the
 * abilities this service does not do yet answer 501; the CredentialResolver answers the tenant's token
 * over gRPC; no token, code or state reaches any process's log.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type grpc, makeClient, unary } from "@gantry/kit";
import { CONNECTIONS_PROTO } from "@gantry/proto/paths";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import type { ResolvedCredential } from "@gantry/kit";
import { type AuthServer, startAuthServer } from "./auth-server.ts";

let t: TestStack;
let auth: AuthServer;
let alice: string;
let bob: string;
let beta: string;

before(async () => {
  auth = await startAuthServer();
  t = await startTestStack({
    services: ["keys", "connections"],
    healthTimeoutMs: 120_000,
    env: {
      CONNECTIONS_ALLOW_HTTP_LOOPBACK: "true",
      CONNECTIONS_PROVIDERS: JSON.stringify({ payments: auth.providerConfig() }),
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
  const client = makeClient<grpc.Client>(
    CONNECTIONS_PROTO,
    "gantry.connections.v1.CredentialResolver",
    t.stack.env.CONNECTIONS_ADDR,
  );
  const resolved = await unary<object, ResolvedCredential>(client, "ResolveCredential", {
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

test("the connection and integration abilities not wired yet answer 501, honestly", async () => {
  const cases: Array<[string, unknown]> = [
    ["integration.app.connect", { toolkit: "github" }],
    ["integration.app.connections", {}],
    ["integration.app.execute", { tool: "GITHUB_CREATE_ISSUE", arguments: {} }],
    [
      "integration.execute",
      { connectionId: "con_01AAAAAAAAAAAAAAAAAAAAAAAA", toolId: "github.create_issue@1", arguments: {} },
    ],
    ["integration.search", { connectionId: "con_01AAAAAAAAAAAAAAAAAAAAAAAA" }],
  ];
  for (const [ability, input] of cases) {
    const res = await t.call(ability, { input }, alice);
    assert.equal(res.status, 501, `${ability} → ${res.status}`);
  }
  // Shares are built: a share of a connection that is not the tenant's is 404, not 501.
  const share = await t.call(
    "connection.authorize",
    {
      input: {
        action: "share",
        connectionId: "con_01AAAAAAAAAAAAAAAAAAAAAAAA",
        principalId: "key_x",
        toolIds: ["a.b@1"],
      },
    },
    alice,
  );
  assert.equal(share.status, 404);
  const listing = await t.call("integration.search", { input: { action: "connections" } }, alice);
  assert.equal(listing.status, 200);
  // The registry is built: toolkits and tools answer.
  for (const [ability, input] of [
    ["integration.app.toolkits", {}],
    ["integration.app.tools", { toolkit: "github" }],
  ] as const) {
    const res = await t.call(ability, { input }, alice);
    assert.equal(res.status, 200, `${ability} → ${res.status}`);
  }
});
