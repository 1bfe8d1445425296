/**
 * A tenant's own email connection: a real connections service holding an OAuth connection made
 * through a real authorization server (the connections service's test harness), and content sending
 * through it with XOAUTH2 on CONTENT_OAUTH_SMTP_URL — `credentialSource: "tenant"`, the SMTP server
 * sees the connection's access token. A tenant without a connection uses the platform server.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ConnectionsTest, startConnections } from "../../../connections/src/test/helpers.ts";
import { type ContentTest, startContent, startSmtp, type TestSmtp } from "../test/helpers.ts";

let conn: ConnectionsTest;
let oauthSmtp: TestSmtp;
let platformSmtp: TestSmtp;
let t: ContentTest;
const logins: Array<{ method: string; user: string; token: string }> = [];
before(async () => {
  conn = await startConnections({ providers: (auth) => ({ email: auth.providerConfig() }) });
  oauthSmtp = await startSmtp({
    options: {
      authMethods: ["XOAUTH2"],
      authOptional: false,
      disabledCommands: ["STARTTLS"],
      onAuth(auth, _session, cb) {
        logins.push({ method: auth.method, user: auth.username ?? "", token: auth.accessToken ?? "" });
        cb(null, { user: auth.username });
      },
    },
  });
  platformSmtp = await startSmtp();
  t = await startContent({
    CONNECTIONS_ADDR: `127.0.0.1:${conn.port}`,
    CONTENT_OAUTH_SMTP_URL: `smtp://127.0.0.1:${oauthSmtp.port}`,
    CONTENT_SMTP_URL: platformSmtp.url,
  });
});
after(async () => {
  await t?.stop();
  await conn?.stop();
  await oauthSmtp?.stop();
  await platformSmtp?.stop();
});

test("the tenant's connection sends (XOAUTH2 with its access token); credentialSource tenant", async () => {
  const { completed } = await conn.connect("email", { tenant: "own-co", keyId: "key_owner" });
  const m = await t.s.call(
    "message.send",
    { channel: "email", to: "ada@contoso.example", from: "Own Co <team@own.example>", subject: "Mine", text: "hi" },
    { tenant: "own-co" },
  );
  assert.equal(m.status, "sent");
  assert.equal(m.credentialSource, "tenant");
  assert.equal(oauthSmtp.received.length, 1);
  assert.equal(oauthSmtp.received[0].parsed.subject, "Mine");
  assert.equal(platformSmtp.received.length, 0);
  const cred = await conn.resolve("own-co", "email");
  assert.equal(cred.connection_id, completed.connection.id);
  assert.deepEqual(logins.at(-1), { method: "XOAUTH2", user: cred.external_ref, token: cred.access_token });
  const { rows } = await t.s.db.query("SELECT connection_id FROM content.deliveries WHERE id = $1", [m.id]);
  assert.equal(rows[0].connection_id, completed.connection.id);
});

test("a tenant without a connection: the platform server; credentialSource platform", async () => {
  const m = await t.s.call(
    "message.send",
    { channel: "email", to: "ada@contoso.example", subject: "Platform", text: "hi" },
    { tenant: "no-conn-co" },
  );
  assert.equal(m.status, "sent");
  assert.equal(m.credentialSource, "platform");
  assert.equal(platformSmtp.received.at(-1)?.parsed.subject, "Platform");
});
