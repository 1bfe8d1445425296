/**
 * SMS through a tenant's own `sms` connection: a real connections service holding a connection made
 * through a real authorization server (the connections service's test harness), whose external ref
 * is the tenant's Twilio Account SID. Content sends from that account (`credentialSource: "tenant"`,
 * the connection's SID in the path and as the Basic user, its token as the password) to the Prism
 * stand-in for Twilio; a tenant without a connection uses the platform's TWILIO_* account; a
 * connection that names no Account SID is refused (503), never silently sent from the platform.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ConnectionsTest, startConnections } from "../../../connections/src/test/helpers.ts";
import { type ContentTest, startContent } from "./helpers.ts";
import { startTwilioStandIn, type TwilioStandIn } from "./twilio.ts";

const PLATFORM_SID = "AC0123456789abcdef0123456789abcdef";
const TENANT_SID = "ACfedcba9876543210fedcba9876543210";

let conn: ConnectionsTest;
let twilio: TwilioStandIn;
let t: ContentTest;
before(async () => {
  twilio = await startTwilioStandIn();
  conn = await startConnections({ providers: (auth) => ({ sms: auth.providerConfig() }) });
  t = await startContent({
    CONNECTIONS_ADDR: `127.0.0.1:${conn.port}`,
    TWILIO_ACCOUNT_SID: PLATFORM_SID,
    TWILIO_AUTH_TOKEN: "platform-token",
    TWILIO_FROM: "+15005550006",
    TWILIO_API_URL: twilio.url,
  });
});
after(async () => {
  await t?.stop();
  await conn?.stop();
  await twilio?.stop();
});

/** Connects `tenant`'s `sms` service, logging in at the authorization server as `login` (its external ref). */
async function connectAs(tenant: string, login: string) {
  const caller = { tenant, keyId: "key_owner" };
  const started = await conn.s.call("connection.authorize", { service: "sms" }, caller);
  const redirect = await conn.auth.consent(started.authorizationUrl, { login });
  const completed = await conn.s.call(
    "connection.authorize",
    { action: "complete", connectionId: started.connection.id, state: started.state, sessionUri: redirect },
    caller,
  );
  assert.equal(completed.connection.status, "connected");
  return completed.connection.id as string;
}

test("the tenant's sms connection sends from its own Twilio account; credentialSource tenant", async () => {
  const connectionId = await connectAs("own-sms", TENANT_SID);
  const cred = await conn.resolve("own-sms", "sms");
  assert.equal(cred.external_ref, TENANT_SID);
  const mark = twilio.received.length;
  const m = await t.s.call(
    "message.send",
    { channel: "sms", to: "+14155550130", text: "From our own number", from: "+14155550199" },
    { tenant: "own-sms" },
  );
  assert.equal(m.status, "sent");
  assert.equal(m.credentialSource, "tenant");
  const sent = twilio.received.slice(mark);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].status, 201);
  assert.equal(sent[0].path, `/2010-04-01/Accounts/${TENANT_SID}/Messages.json`);
  assert.equal(sent[0].authorization, `Basic ${Buffer.from(`${TENANT_SID}:${cred.access_token}`).toString("base64")}`);
  assert.deepEqual(sent[0].form, { To: "+14155550130", From: "+14155550199", Body: "From our own number" });
  const { rows } = await t.s.db.query("SELECT connection_id, credential_source FROM content.deliveries WHERE id = $1", [
    m.id,
  ]);
  assert.deepEqual(rows[0], { connection_id: connectionId, credential_source: "tenant" });
});

test("a tenant's own account names no default sender: from is required, a 400 naming it", async () => {
  await assert.rejects(
    t.s.call("message.send", { channel: "sms", to: "+14155550131", text: "x" }, { tenant: "own-sms" }),
    (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.deepEqual(
        err.details.map((d: any) => d.path),
        ["/input/from"],
      );
      return true;
    },
  );
});

test("a tenant without a connection: the platform's Twilio account; credentialSource platform", async () => {
  const mark = twilio.received.length;
  const m = await t.s.call("message.send", { channel: "sms", to: "+14155550132", text: "hi" }, { tenant: "no-sms" });
  assert.equal(m.status, "sent");
  assert.equal(m.credentialSource, "platform");
  assert.equal(twilio.received[mark].path, `/2010-04-01/Accounts/${PLATFORM_SID}/Messages.json`);
  assert.equal(twilio.received[mark].form.From, "+15005550006");
});

test("a connection that names no Account SID is refused with 503, nothing sent from the platform", async () => {
  await connectAs("odd-sms", "alice");
  const mark = twilio.received.length;
  await assert.rejects(
    t.s.call("message.send", { channel: "sms", to: "+14155550133", text: "x", from: "Odd" }, { tenant: "odd-sms" }),
    (err: any) => {
      assert.equal(err.code, "unavailable");
      assert.match(err.message, /Account SID/);
      return true;
    },
  );
  assert.equal(twilio.received.length, mark, "nothing sent");
});
