/**
 * message.send channel sms against a stand-in for Twilio generated from Twilio's published OpenAPI
 * description by Stoplight Prism (test/twilio.ts), through a real connections service that has no
 * `sms` account (so the platform's TWILIO_* settings send): Prism accepting each request proves the
 * wire format; a status, answer and Twilio sid per recipient; the delivery recorded; idempotency;
 * a request Twilio's document refuses answered as a failed message; clear 400s; and without any
 * Twilio account, discovery's needs_configuration and a 501 naming the variables.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import service from "../service.ts";
import { checkSmsConfig } from "../sms.ts";
import { type ContentTest, startContent } from "../test/helpers.ts";
import { startTwilioStandIn, type TwilioStandIn } from "../test/twilio.ts";

const SID = "AC0123456789abcdef0123456789abcdef";
const TOKEN = "tw-auth-token-s3cret";
const FROM = "+15005550006";
const MESSAGES_PATH = `/2010-04-01/Accounts/${SID}/Messages.json`;
/** What the content service's Describe says it cannot do with a harness's configuration. */
const needsOf = (ctx: unknown) => service.needs?.(ctx as Parameters<NonNullable<typeof service.needs>>[0]) ?? [];

let twilio: TwilioStandIn;
let connections: ServiceHarness<unknown>;
let t: ContentTest;
before(async () => {
  twilio = await startTwilioStandIn();
  connections = await startService("connections");
  t = await startContent({
    CONNECTIONS_ADDR: `127.0.0.1:${connections.port}`,
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: TOKEN,
    TWILIO_FROM: FROM,
    TWILIO_API_URL: twilio.url,
  });
});
after(async () => {
  await t?.stop();
  await connections?.stop();
  await twilio?.stop();
});

test("sms: one Twilio message per number in Twilio's wire format; a status, answer and sid per recipient", async () => {
  const mark = twilio.received.length;
  const m = await t.s.call(
    "message.send",
    { channel: "sms", to: ["+2348012345678", "+14155550123"], text: "Your code is 4821." },
    { tenant: "sms-co", requestId: "req_sms_1" },
  );
  const sent = twilio.received.slice(mark);
  assert.equal(sent.length, 2, "one request per number");
  for (const r of sent) {
    assert.equal(r.method, "POST");
    assert.equal(r.path, MESSAGES_PATH);
    assert.equal(r.authorization, `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString("base64")}`);
    assert.equal(r.contentType, "application/x-www-form-urlencoded");
    assert.equal(r.status, 201, `Prism accepted the request: ${JSON.stringify(r.body)}`);
  }
  assert.deepEqual(
    sent.map((r) => r.form).sort((a, b) => a.To.localeCompare(b.To)),
    [
      { To: "+14155550123", From: FROM, Body: "Your code is 4821." },
      { To: "+2348012345678", From: FROM, Body: "Your code is 4821." },
    ],
  );

  assert.equal(m.channel, "sms");
  assert.equal(m.status, "sent");
  assert.equal(m.transport, "twilio");
  assert.equal(m.credentialSource, "platform");
  assert.equal(m.from, FROM);
  assert.equal(m.subject, null);
  assert.equal(m.requestId, "req_sms_1");
  assert.ok(m.sent);
  const sid = String(sent[0].body.sid);
  assert.equal(m.messageId, sid, "the provider's message id");
  assert.deepEqual(
    m.recipients.map((r: any) => [r.address, r.field, r.status, r.responseCode, r.response, r.providerMessageId]),
    [
      ["+2348012345678", "to", "accepted", 201, sent[0].body.status, sid],
      ["+14155550123", "to", "accepted", 201, sent[1].body.status, String(sent[1].body.sid)],
    ],
  );

  const { rows } = await t.s.db.query(
    `SELECT d.channel, d.status, d.transport, d.text_body, r.address, r.status AS rstatus, r.response_code,
            r.provider_message_id FROM content.deliveries d
       JOIN content.delivery_recipients r ON r.delivery_id = d.id WHERE d.id = $1 ORDER BY r.position`,
    [m.id],
  );
  assert.deepEqual(
    rows.map((r) => [r.channel, r.status, r.transport, r.text_body, r.address, r.rstatus, r.response_code]),
    [
      ["sms", "sent", "twilio", "Your code is 4821.", "+2348012345678", "accepted", 201],
      ["sms", "sent", "twilio", "Your code is 4821.", "+14155550123", "accepted", 201],
    ],
  );
  assert.equal(rows[0].provider_message_id, sid);
});

test("sms: the input's sender is sent as From", async () => {
  const mark = twilio.received.length;
  const m = await t.s.call(
    "message.send",
    { channel: "sms", to: "+14155550124", text: "Hi", from: "Northwind" },
    { tenant: "sms-co" },
  );
  assert.equal(m.from, "Northwind");
  assert.deepEqual(twilio.received[mark].form, { To: "+14155550124", From: "Northwind", Body: "Hi" });
});

test("sms: idempotencyKey sends once; the key with another text is a 409", async () => {
  const input = { channel: "sms", to: "+14155550125", text: "Once.", idempotencyKey: "sms-once-1" };
  const mark = twilio.received.length;
  const first = await t.s.call("message.send", input, { tenant: "sms-idem", requestId: "req_sms_i1" });
  const again = await t.s.call("message.send", input, { tenant: "sms-idem", requestId: "req_sms_i2" });
  assert.equal(again.id, first.id);
  assert.deepEqual(again, first);
  assert.equal(twilio.received.length, mark + 1, "one SMS on the wire");
  await assert.rejects(t.s.call("message.send", { ...input, text: "Twice." }, { tenant: "sms-idem" }), (err: any) => {
    assert.equal(err.code, "conflict");
    assert.deepEqual(
      err.details.map((d: any) => d.path),
      ["/input/text"],
    );
    return true;
  });
  assert.equal(twilio.received.length, mark + 1);
});

test("sms: a number not in E.164, a text over 1,600 characters or a bad sender is a 400 naming the field alone", async () => {
  const refused = async (input: Record<string, unknown>, message: string) =>
    assert.rejects(t.s.call("message.send", { channel: "sms", ...input }, { tenant: "sms-co" }), (err: any) => {
      assert.equal(err.code, "validation_failed");
      // Only the sms variant speaks: not the email variant's subject, nor "must be a list".
      assert.deepEqual(
        err.details.map((d: any) => d.message),
        [message],
      );
      return true;
    });
  const mark = twilio.received.length;
  await refused(
    { to: "4155550123", text: "x" },
    "/input/to must be a phone number in international form: + and 7 to 15 digits, e.g. +2348031234567",
  );
  await refused(
    { to: ["+14155550123", "0800 123"], text: "x" },
    "/input/to/1 must be a phone number in international form: + and 7 to 15 digits, e.g. +2348031234567",
  );
  await refused({ to: "+14155550123", text: "x".repeat(1601) }, "/input/text must be at most 1600 characters long");
  await refused({ to: "+14155550123" }, '/input/text is required (missing "text")');
  await refused(
    { to: "+14155550123", text: "x", from: "Northwind Studio" },
    "/input/from must be a phone number in international form (+ and 7 to 15 digits) or a sender name of up to 11 letters, digits or spaces",
  );
  assert.equal(twilio.received.length, mark, "nothing sent");
});

test("sms: a request Twilio's API refuses is a failed message with the provider's answer; no secret in it", async () => {
  // An Account SID one character short, as an operator's paste might leave it: Twilio's document
  // (and so Prism) refuses the request path.
  const typo = SID.slice(0, -1);
  const bad = await startContent({
    CONNECTIONS_ADDR: `127.0.0.1:${connections.port}`,
    TWILIO_ACCOUNT_SID: typo,
    TWILIO_AUTH_TOKEN: TOKEN,
    TWILIO_FROM: FROM,
    TWILIO_API_URL: twilio.url,
  });
  try {
    const mark = twilio.received.length;
    const m = await bad.s.call(
      "message.send",
      { channel: "sms", to: ["+14155550126", "+14155550127"], text: "Hello" },
      { tenant: "sms-bad" },
    );
    assert.equal(twilio.received.length, mark + 2);
    assert.equal(twilio.received[mark].status, 422, "the stand-in refused it");
    assert.equal(m.status, "failed");
    assert.equal(m.messageId, null);
    assert.equal(m.sent, null);
    for (const r of m.recipients) {
      assert.equal(r.status, "failed");
      assert.equal(r.responseCode, 422);
      assert.match(r.response, /accountsid/i, "the provider's reason");
      assert.equal(r.providerMessageId, null);
    }
    const { rows } = await bad.s.db.query("SELECT status, error FROM content.deliveries WHERE id = $1", [m.id]);
    assert.equal(rows[0].status, "failed");
    assert.match(rows[0].error, /accountsid/i);
    assert.ok(!JSON.stringify([m, rows]).includes(TOKEN), "the auth token appears nowhere");
  } finally {
    await bad.stop();
  }
});

test("sms: without a Twilio account, discovery says needs_configuration and a call answers 501 naming the variables", async () => {
  assert.deepEqual(needsOf(t.s.ctx), [], "configured: nothing missing");
  const bare = await startContent({ CONNECTIONS_ADDR: `127.0.0.1:${connections.port}` });
  try {
    const needs = needsOf(bare.s.ctx);
    assert.deepEqual(
      needs.map((n) => [n.ability, n.part, n.status, n.variables]),
      [
        [
          "message.send",
          "channel sms",
          "needs_configuration",
          ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM"],
        ],
      ],
    );
    const mark = twilio.received.length;
    await assert.rejects(
      bare.s.call("message.send", { channel: "sms", to: "+14155550128", text: "x" }, { tenant: "sms-none" }),
      (err: any) => {
        assert.equal(err.code, "not_implemented");
        assert.match(err.message, /TWILIO_ACCOUNT_SID/);
        return true;
      },
    );
    assert.equal(twilio.received.length, mark);
    const { rows } = await bare.s.db.query("SELECT 1 FROM content.deliveries WHERE tenant = 'sms-none'");
    assert.equal(rows.length, 0, "nothing recorded");
  } finally {
    await bare.stop();
  }
});

test("sms: a half-set account is refused at start, naming what is missing", () => {
  const config = t.s.ctx.config;
  assert.throws(() => checkSmsConfig({ ...config, TWILIO_AUTH_TOKEN: undefined }), /TWILIO_AUTH_TOKEN/);
  assert.throws(
    () => checkSmsConfig({ ...config, TWILIO_FROM: undefined, TWILIO_MESSAGING_SERVICE_SID: undefined }),
    /TWILIO_FROM/,
  );
  assert.doesNotThrow(() => checkSmsConfig({ ...config, TWILIO_FROM: undefined, TWILIO_MESSAGING_SERVICE_SID: "MG0" }));
  assert.doesNotThrow(() => checkSmsConfig(t.s.ctx.config));
});
