/**
 * The default email transport of the quick start: with no email connection, no platform account at
 * the connections service and no CONTENT_SMTP_URL, a message is stored in the outbox (status
 * `captured`, `transport: "outbox"`), never reported as sent; with CONTENT_SMTP_URL it goes to that
 * server as the platform account.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { type ContentTest, startContent, startSmtp, type TestSmtp } from "./helpers.ts";

let connections: ServiceHarness<unknown>;
let t: ContentTest;
let smtp: TestSmtp;
before(async () => {
  connections = await startService("connections", { CONNECTIONS_PLATFORM_ACCOUNTS: "{}" });
  t = await startContent({ CONNECTIONS_ADDR: `127.0.0.1:${connections.port}` });
  smtp = await startSmtp();
});
after(async () => {
  await t?.stop();
  await connections?.stop();
  await smtp?.stop();
});

test("no SMTP anywhere: captured in the outbox, stored with its body, never 'sent'", async () => {
  const m = await t.s.call(
    "message.send_markdown",
    { to: "ada@contoso.example", subject: "Hello", markdown: "# Hi\n\nThere." },
    { tenant: "quick-co" },
  );
  assert.equal(m.status, "captured");
  assert.equal(m.transport, "outbox");
  assert.equal(m.credentialSource, "platform");
  assert.equal(m.sent, null);
  assert.deepEqual(
    m.recipients.map((r: any) => [r.address, r.status, r.responseCode]),
    [["ada@contoso.example", "captured", null]],
  );
  const { rows } = await t.s.db.query(
    "SELECT status, transport, html_body, text_body FROM content.deliveries WHERE id = $1",
    [m.id],
  );
  assert.equal(rows[0].status, "captured");
  assert.equal(rows[0].transport, "outbox");
  assert.match(rows[0].html_body, /<h1[^>]*>Hi<\/h1>/);
  assert.equal(rows[0].text_body, "# Hi\n\nThere.");
});

test("CONTENT_SMTP_URL: the platform's own server when connections has no account", async () => {
  const c = await startContent({
    CONNECTIONS_ADDR: `127.0.0.1:${connections.port}`,
    CONTENT_SMTP_URL: smtp.url,
    CONTENT_SMTP_FROM: "Platform <mail@platform.example>",
  });
  try {
    const m = await c.s.call("message.send", {
      channel: "email",
      to: "ada@contoso.example",
      subject: "Via env",
      text: "hello",
    });
    assert.equal(m.status, "sent");
    assert.equal(m.transport, "smtp");
    assert.equal(m.credentialSource, "platform");
    assert.equal(m.from, "Platform <mail@platform.example>");
    assert.equal(smtp.received.length, 1);
    assert.equal(smtp.received[0].parsed.subject, "Via env");
  } finally {
    await c.stop();
  }
});

test("connections unreachable: 503, nothing stored as sent", async () => {
  const c = await startContent({ CONTENT_SMTP_URL: smtp.url });
  try {
    await assert.rejects(
      c.s.call("message.send", { channel: "email", to: "ada@contoso.example", subject: "x", text: "y" }),
      { code: "unavailable" },
    );
    const { rows } = await c.s.db.query("SELECT count(*)::int AS n FROM content.deliveries");
    assert.equal(rows[0].n, 0);
  } finally {
    await c.stop();
  }
});
