/**
 * The CredentialResolver over real gRPC: the tenant's connection when it is connected, else the
 * platform account (saying why, `connection_status`), else NOT_FOUND; connection.get reports the same
 * `credentialSource` at every step. The tenant must match exactly; malformed requests are refused.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ConnectionsTest, PLATFORM_EMAIL, startConnections } from "./test/helpers.ts";

let t: ConnectionsTest;
before(async () => {
  // `email` has an OAuth provider and a platform account; `payments` only a provider.
  t = await startConnections({
    providers: (auth) => ({ payments: auth.providerConfig(), email: auth.providerConfig() }),
  });
});
after(async () => t?.stop());

async function sourceOf(tenant: string, service: string): Promise<string> {
  return (await t.s.call("connection.get", { service }, { tenant })).credentialSource;
}

test("no connection: the platform account answers, with its credentials; none configured is NOT_FOUND", async () => {
  const r = await t.resolve("fresh-co", "email");
  assert.equal(r.credential_source, "platform");
  assert.equal(r.auth_scheme, "platform");
  assert.deepEqual(r.credentials, PLATFORM_EMAIL);
  assert.equal(r.connection_id, "");
  assert.equal(r.access_token, "");
  assert.equal(r.connection_status, "");
  assert.equal(await sourceOf("fresh-co", "email"), "platform");

  await assert.rejects(t.resolve("fresh-co", "payments"), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.match(err.message, /no connection for payments and no platform account/);
    return true;
  });
  assert.equal(await sourceOf("fresh-co", "payments"), "none");
});

test("pending → platform (status pending); connected → the tenant's token; revoked → platform (status revoked)", async () => {
  const tenant = "steps-co";
  const started = await t.s.call("connection.authorize", { service: "email" }, { tenant });
  const pending = await t.resolve(tenant, "email");
  assert.equal(pending.credential_source, "platform");
  assert.equal(pending.connection_status, "pending");
  assert.equal(await sourceOf(tenant, "email"), "platform");

  const redirect = await t.auth.consent(started.authorizationUrl, { login: "steps-mailbox" });
  await t.s.call(
    "connection.authorize",
    { action: "complete", connectionId: started.connection.id, state: started.state, sessionUri: redirect },
    { tenant },
  );
  const connected = await t.resolve(tenant, "email");
  assert.equal(connected.credential_source, "tenant");
  assert.equal(connected.auth_scheme, "oauth2");
  assert.equal(connected.connection_id, started.connection.id);
  assert.equal(connected.token_type, "bearer");
  assert.equal(connected.external_ref, "steps-mailbox");
  assert.deepEqual([...connected.scopes].sort(), ["offline_access", "openid"]);
  assert.ok(connected.expires_at_ms > Date.now());
  assert.deepEqual(connected.credentials, {});
  assert.equal(connected.connection_status, "connected");
  assert.equal(await t.auth.userinfo(connected.access_token), 200);
  assert.equal(await sourceOf(tenant, "email"), "tenant");

  const revoked = await t.s.call("connection.revoke", { service: "email" }, { tenant });
  assert.equal(revoked.credentialSource, "platform");
  const after = await t.resolve(tenant, "email");
  assert.equal(after.credential_source, "platform");
  assert.equal(after.connection_status, "revoked");
  assert.deepEqual(after.credentials, PLATFORM_EMAIL);
});

test("the tenant must match exactly: a sub-tenant or another tenant does not get the connection", async () => {
  await t.connect("payments", { tenant: "parent-co" });
  assert.equal((await t.resolve("parent-co", "payments")).credential_source, "tenant");
  await assert.rejects(t.resolve("parent-co/shop1", "payments"), { code: "not_found" });
  await assert.rejects(t.resolve("parent", "payments"), { code: "not_found" });
  assert.equal((await t.resolve("parent-co/shop1", "email")).credential_source, "platform");
});

test("malformed requests are INVALID_ARGUMENT", async () => {
  for (const [tenant, service] of [
    ["", "email"],
    ["acme", ""],
    ["acme", "Email!"],
    ["../etc", "email"],
    ["x".repeat(200), "email"],
  ]) {
    await assert.rejects(t.resolve(tenant, service), { code: "invalid_request" }, `${tenant}/${service}`);
  }
});
