/**
 * connection.authorize against a real authorization server (oidc-provider on a loopback port, PKCE
 * required, rotating refresh tokens, revocation): start → the user logs in and consents at the
 * provider → complete, over the one-service harness (real Postgres, NATS, gRPC). Every result is
 * checked against the catalogue's output schema by the harness.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openValue } from "../crypto.ts";
import { openTokens } from "../credentials.ts";
import type { Connection } from "../db.ts";
import { type ConnectionsTest, startConnections, until } from "../test/helpers.ts";

let t: ConnectionsTest;
before(async () => {
  t = await startConnections();
});
after(async () => t?.stop());

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

async function connectionRow(id: string): Promise<Connection> {
  const { rows } = await t.s.db.query(
    `SELECT id, tenant, service, status, access_token_enc AS "accessTokenEnc", refresh_token_enc AS "refreshTokenEnc",
            data_key_enc AS "dataKeyEnc", key_version AS "keyVersion"
       FROM connections.connections WHERE id = $1`,
    [id],
  );
  return rows[0] as Connection;
}

async function trail(id: string): Promise<string[]> {
  const { rows } = await t.s.db.query(
    "SELECT type FROM connections.connection_events WHERE connection_id = $1 ORDER BY id",
    [id],
  );
  return rows.map((r) => r.type);
}

test("start answers the provider's authorization URL (code, PKCE S256, state) and a pending connection whose session expires in 10 minutes", async () => {
  const before = Date.now();
  const r = await t.s.call("connection.authorize", { service: "payments" }, { tenant: "start-co" });
  const after = Date.now();
  assert.equal(r.action, "start");
  const url = new URL(r.authorizationUrl);
  assert.equal(url.origin, t.auth.issuer);
  assert.equal(url.searchParams.get("response_type"), "code");
  assert.equal(url.searchParams.get("client_id"), "gantry-connections-test");
  assert.equal(url.searchParams.get("redirect_uri"), t.auth.redirectUris[0]);
  assert.equal(url.searchParams.get("scope"), "openid offline_access");
  assert.equal(url.searchParams.get("state"), r.state);
  assert.equal(url.searchParams.get("code_challenge_method"), "S256");
  assert.match(url.searchParams.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/);
  assert.equal(r.connection.status, "pending");
  assert.equal(r.connection.kind, "service");
  assert.equal(r.connection.authScheme, "oauth2");
  assert.equal(r.connection.principalId, "key_harness");
  assert.equal(r.connection.tenant, "start-co");
  assert.equal(r.connection.credentialExpires, null);
  // Ten minutes from some moment during the call (a loaded machine can take over a second to answer).
  const [fromBefore, fromAfter] = [Date.parse(r.expires) - before, Date.parse(r.expires) - after];
  assert.ok(fromBefore >= 599_000 && fromAfter <= 601_000, `session lifetime ${fromBefore}–${fromAfter} ms`);

  // Stored: the state only as its hash, the PKCE verifier sealed; the challenge is S256 of that verifier.
  const { rows } = await t.s.db.query("SELECT * FROM connections.oauth_sessions WHERE connection_id = $1", [
    r.connection.id,
  ]);
  assert.equal(rows.length, 1);
  const session = rows[0];
  assert.equal(session.state_hash, sha256(r.state));
  assert.equal(session.principal_id, "key_harness");
  assert.ok(!JSON.stringify(session).includes(r.state));
  const verifier = openValue(
    t.s.ctx.keys,
    { tenant: "start-co", id: session.id },
    session.data_key_enc,
    session.key_version,
    "code_verifier",
    session.code_verifier_enc,
  );
  assert.equal(createHash("sha256").update(verifier).digest("base64url"), url.searchParams.get("code_challenge"));
  assert.ok(!session.code_verifier_enc.toString("latin1").includes(verifier));

  // A second start for the same service reuses the pending connection with a new session and state.
  const again = await t.s.call(
    "connection.authorize",
    { action: "start", service: "payments" },
    { tenant: "start-co" },
  );
  assert.equal(again.connection.id, r.connection.id);
  assert.notEqual(again.state, r.state);
  assert.deepEqual(await trail(r.connection.id), ["consent_started", "consent_started"]);
});

test("start: returnUrl must be a registered redirect URI; an unknown service names the field and the configured ones", async () => {
  const r = await t.s.call(
    "connection.authorize",
    { service: "payments", returnUrl: t.auth.redirectUris[1] },
    { tenant: "return-co" },
  );
  assert.equal(new URL(r.authorizationUrl).searchParams.get("redirect_uri"), t.auth.redirectUris[1]);
  await assert.rejects(
    t.s.call("connection.authorize", { service: "payments", returnUrl: "https://evil.example/steal" }),
    (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.equal(err.details[0].path, "/input/returnUrl");
      assert.match(err.message, /not a redirect URI registered for payments/);
      return true;
    },
  );
  await assert.rejects(t.s.call("connection.authorize", { service: "telegraph" }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.deepEqual(err.details[0].path, "/input/service");
    assert.equal(err.details[0].code, "enum");
    assert.deepEqual(err.details[0].params.allowedValues, ["payments"]);
    return true;
  });
});

test("complete connects only for the principal that started it, with its state, once; tokens come from the provider", async () => {
  const caller = { tenant: "acme", keyId: "key_alice" };
  const started = await t.s.call("connection.authorize", { service: "payments" }, caller);
  const redirect = await t.auth.consent(started.authorizationUrl);
  const redirected = new URL(redirect);
  assert.equal(redirected.searchParams.get("state"), started.state);
  assert.ok(redirected.searchParams.get("code"));
  const complete = {
    action: "complete",
    connectionId: started.connection.id,
    state: started.state,
    sessionUri: redirect,
  };
  const codesBefore = t.auth.grants.authorization_code ?? 0;

  // Another key of the same tenant: refused, actor-bound consent.
  await assert.rejects(
    t.s.call("connection.authorize", complete, { tenant: "acme", keyId: "key_mallory" }),
    (err: any) => {
      assert.equal(err.code, "forbidden");
      assert.equal(err.details[0].path, "/input/state");
      assert.match(err.message, /started by another principal \(key_alice\)/);
      return true;
    },
  );
  // Another tenant: the connection does not exist there.
  await assert.rejects(
    t.s.call("connection.authorize", complete, { tenant: "beta", keyId: "key_alice" }),
    (err: any) => {
      assert.equal(err.code, "not_found");
      assert.equal(err.details[0].path, "/input/connectionId");
      return true;
    },
  );
  // A state that is not this consent's.
  await assert.rejects(t.s.call("connection.authorize", { ...complete, state: "forged-state" }, caller), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].path, "/input/state");
    return true;
  });
  // A redirect to somewhere else than the redirect URI of the consent.
  const elsewhere = redirect.replace("/oauth/callback", "/elsewhere");
  await assert.rejects(t.s.call("connection.authorize", { ...complete, sessionUri: elsewhere }, caller), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].path, "/input/sessionUri");
    return true;
  });
  // A redirect carrying another consent's state.
  const otherState = redirect.replace(`state=${started.state}`, "state=another-consents-state");
  await assert.rejects(
    t.s.call("connection.authorize", { ...complete, sessionUri: otherState }, caller),
    (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.equal(err.details[0].path, "/input/sessionUri");
      return true;
    },
  );
  assert.equal(t.auth.grants.authorization_code ?? 0, codesBefore, "no refused completion reached the provider");

  const done = await t.s.call("connection.authorize", complete, caller);
  assert.equal(done.action, "complete");
  const c = done.connection;
  assert.equal(c.id, started.connection.id);
  assert.equal(c.status, "connected");
  assert.equal(c.principalId, "key_alice");
  assert.equal(c.externalRef, "alice", "the ID token's subject names the account");
  assert.deepEqual([...c.scopes].sort(), ["offline_access", "openid"]);
  assert.ok(c.connected);
  const lifetime = Date.parse(c.credentialExpires) - Date.parse(c.connected);
  assert.ok(lifetime > 3590_000 && lifetime <= 3600_000, `token lifetime ${lifetime}`);
  assert.equal(t.auth.grants.authorization_code, codesBefore + 1);

  // The same completion again: the session was used.
  await assert.rejects(t.s.call("connection.authorize", complete, caller), (err: any) => {
    assert.equal(err.code, "conflict");
    assert.equal(err.details[0].path, "/input/state");
    return true;
  });
  assert.equal(t.auth.grants.authorization_code, codesBefore + 1);

  // The access token works at the provider; the trail and the NATS event say what happened, without tokens.
  const resolved = await t.resolve("acme", "payments");
  assert.equal(resolved.credential_source, "tenant");
  assert.equal(await t.auth.userinfo(resolved.access_token), 200);
  assert.deepEqual(await trail(c.id), ["consent_started", "connected"]);
  const msg = await until(() => t.messages.find((m) => m.event === "connected" && m.connectionId === c.id));
  assert.equal(msg.tenant, "acme");
  assert.equal(msg.service, "payments");
  assert.equal(msg.status, "connected");
  assert.equal(msg.principalId, "key_alice");
  assert.ok(!JSON.stringify(msg).includes(resolved.access_token));
});

test("an expired consent session and a consent the user refused are clear errors naming the field", async () => {
  const caller = { tenant: "late-co" };
  const started = await t.s.call("connection.authorize", { service: "payments" }, caller);
  const redirect = await t.auth.consent(started.authorizationUrl);
  t.advanceClock(601_000);
  try {
    await assert.rejects(
      t.s.call(
        "connection.authorize",
        { action: "complete", connectionId: started.connection.id, state: started.state, sessionUri: redirect },
        caller,
      ),
      (err: any) => {
        assert.equal(err.code, "validation_failed");
        assert.equal(err.details[0].path, "/input/state");
        assert.match(err.message, /expired at/);
        return true;
      },
    );
  } finally {
    t.advanceClock(-601_000);
  }

  const denied = await t.s.call("connection.authorize", { service: "payments" }, { tenant: "shy-co" });
  const refusal = await t.auth.consent(denied.authorizationUrl, { deny: true });
  assert.equal(new URL(refusal).searchParams.get("error"), "access_denied");
  await assert.rejects(
    t.s.call(
      "connection.authorize",
      { action: "complete", connectionId: denied.connection.id, state: denied.state, sessionUri: refusal },
      { tenant: "shy-co" },
    ),
    (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.equal(err.details[0].path, "/input/sessionUri");
      assert.match(err.message, /access_denied/);
      return true;
    },
  );
  const got = await t.s.call("connection.get", { service: "payments" }, { tenant: "shy-co" });
  assert.equal(got.connection.status, "pending");
  assert.deepEqual(await trail(denied.connection.id), ["consent_started", "consent_failed"]);
});

test("credentials are encrypted at rest: no token appears in any table, and another tenant's binding does not open them", async () => {
  const { completed } = await t.connect("payments", { tenant: "vault-co" });
  const row = await connectionRow(completed.connection.id);
  const tokens = openTokens(t.s.ctx, row);
  assert.ok(tokens?.access && tokens.refresh, "an access and a refresh token are stored");
  assert.equal((await t.resolve("vault-co", "payments")).access_token, tokens.access);
  for (const table of ["connections", "oauth_sessions", "connection_events", "idempotency_records"]) {
    const { rows } = await t.s.db.query(`SELECT row_to_json(x)::text AS j FROM connections.${table} x`);
    const all = rows.map((r) => r.j).join("\n");
    assert.ok(!all.includes(tokens.access), `the access token appears in ${table}`);
    assert.ok(!all.includes(tokens.refresh as string), `the refresh token appears in ${table}`);
    // Nor in the hex form Postgres would print bytea in.
    assert.ok(!all.includes(Buffer.from(tokens.access).toString("hex")), `the access token appears in ${table} (hex)`);
  }
  assert.ok(row.keyVersion === t.s.ctx.keys.current.version);
  assert.throws(() => openTokens(t.s.ctx, { ...row, tenant: "beta" }), /failed authentication/);
  assert.throws(() => openTokens(t.s.ctx, { ...row, id: "con_01SOMEONEELSE000000000000" }), /failed authentication/);
});

test("revoke revokes the tokens at the provider, deletes them here, and announces it", async () => {
  const caller = { tenant: "leaving-co", keyId: "key_owner" };
  const { completed } = await t.connect("payments", caller);
  const id = completed.connection.id;
  const { access_token } = await t.resolve("leaving-co", "payments");
  assert.equal(await t.auth.userinfo(access_token), 200);

  const r = await t.s.call(
    "connection.authorize",
    { action: "revoke", connectionId: id },
    { tenant: "leaving-co", keyId: "key_admin" },
  );
  assert.equal(r.action, "revoke");
  assert.equal(r.connection.status, "revoked");
  assert.ok(r.connection.revoked);
  assert.equal(r.connection.credentialExpires, null);
  assert.equal(await t.auth.userinfo(access_token), 401, "the provider no longer accepts the access token");
  const row = await connectionRow(id);
  assert.equal(row.accessTokenEnc, null);
  assert.equal(row.refreshTokenEnc, null);
  assert.equal(row.dataKeyEnc, null);
  const msg = await until(() => t.messages.find((m) => m.event === "revoked" && m.connectionId === id));
  assert.equal(msg.detail.providerRevoked, true);

  // Again: unchanged. Another tenant: not found.
  const again = await t.s.call(
    "connection.authorize",
    { action: "revoke", connectionId: id },
    { tenant: "leaving-co" },
  );
  assert.deepEqual(again, r);
  await assert.rejects(t.s.call("connection.authorize", { action: "revoke", connectionId: id }, { tenant: "beta" }), {
    code: "not_found",
  });
  await assert.rejects(t.resolve("leaving-co", "payments"), { code: "not_found" });
});
