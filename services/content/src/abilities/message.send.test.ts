/**
 * message.send and message.send_markdown against a real SMTP server on a loopback port, through the
 * platform account a real connections service answers: what arrived (envelope, headers, both
 * parts), a status and the server's reply per recipient, the delivery recorded, idempotency, and the
 * Markdown rendering (sanitised) in the themed frame.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import { asSystem } from "@gantry/kit";
import { closeInterruptedSends, INTERRUPTED } from "../sweep.ts";
import { type ContentTest, startContent, startSmtp, type TestSmtp } from "../test/helpers.ts";

let smtp: TestSmtp;
let connections: ServiceHarness<unknown>;
let t: ContentTest;
before(async () => {
  smtp = await startSmtp({ reject: ["nobody@contoso.example"], user: "platform", pass: "s3cret pass" });
  connections = await startService("connections", {
    CONNECTIONS_PLATFORM_ACCOUNTS: JSON.stringify({
      email: { smtpUrl: smtp.url, from: "Northwind <noreply@northwind.example>" },
    }),
  });
  t = await startContent({ CONNECTIONS_ADDR: `127.0.0.1:${connections.port}` });
});
after(async () => {
  await t?.stop();
  await connections?.stop();
  await smtp?.stop();
});

test("message.send: several recipients, a status and SMTP reply each; headers and both parts arrive", async () => {
  const before = smtp.received.length;
  const m = await t.s.call(
    "message.send",
    {
      channel: "email",
      to: ["ada@contoso.example", "nobody@contoso.example"],
      cc: ["cc@contoso.example"],
      bcc: ["audit@northwind.example"],
      subject: "Invoice INV-7",
      text: "Your invoice is attached.",
      html: "<p>Your <b>invoice</b> is attached.</p>",
      replyTo: "billing@northwind.example",
    },
    { tenant: "send-co", requestId: "req_send_1" },
  );
  assert.equal(m.status, "partially_sent");
  assert.equal(m.transport, "smtp");
  assert.equal(m.credentialSource, "platform");
  assert.equal(m.from, "Northwind <noreply@northwind.example>", "the platform account's sender");
  assert.equal(m.requestId, "req_send_1");
  assert.match(m.id, /^msg_/);
  assert.match(m.messageId, /^<msg_[A-Za-z0-9]+@northwind\.example>$/);
  assert.ok(m.sent);
  assert.deepEqual(
    m.recipients.map((r: any) => [r.address, r.field, r.status, r.responseCode]),
    [
      ["ada@contoso.example", "to", "accepted", 250],
      ["nobody@contoso.example", "to", "rejected", 550],
      ["cc@contoso.example", "cc", "accepted", 250],
      ["audit@northwind.example", "bcc", "accepted", 250],
    ],
  );
  assert.match(m.recipients[1].response, /^550 .*No such user/);

  assert.equal(smtp.received.length, before + 1);
  const got = smtp.received.at(-1)!;
  assert.equal(got.from, "noreply@northwind.example");
  assert.deepEqual(got.to.sort(), ["ada@contoso.example", "audit@northwind.example", "cc@contoso.example"]);
  const p = got.parsed;
  assert.equal(p.subject, "Invoice INV-7");
  assert.equal(p.messageId, m.messageId);
  assert.equal(p.from?.text, '"Northwind" <noreply@northwind.example>');
  assert.equal(p.replyTo?.text, "billing@northwind.example");
  assert.match(String((p.cc as any)?.text), /cc@contoso\.example/);
  assert.ok(!/^bcc:/im.test(got.raw), "Bcc is not a header");
  assert.equal(p.text?.trim(), "Your invoice is attached.");
  assert.match(String(p.html), /<b>invoice<\/b>/);

  // Recorded with every recipient's answer.
  const { rows } = await t.s.db.query(
    `SELECT d.status, d.transport, r.address, r.status AS rstatus, r.response_code FROM content.deliveries d
       JOIN content.delivery_recipients r ON r.delivery_id = d.id WHERE d.id = $1 ORDER BY r.position`,
    [m.id],
  );
  assert.deepEqual(
    rows.map((r) => [r.status, r.transport, r.address, r.rstatus, r.response_code]),
    [
      ["partially_sent", "smtp", "ada@contoso.example", "accepted", 250],
      ["partially_sent", "smtp", "nobody@contoso.example", "rejected", 550],
      ["partially_sent", "smtp", "cc@contoso.example", "accepted", 250],
      ["partially_sent", "smtp", "audit@northwind.example", "accepted", 250],
    ],
  );
});

test("message.send: every recipient refused is failed, with no Message-ID", async () => {
  const m = await t.s.call(
    "message.send",
    { channel: "email", to: "nobody@contoso.example", subject: "x", text: "y" },
    { tenant: "send-co" },
  );
  assert.equal(m.status, "failed");
  assert.equal(m.messageId, null);
  assert.equal(m.sent, null);
  assert.equal(m.recipients[0].status, "rejected");
  assert.equal(m.recipients[0].responseCode, 550);
});

test("message.send: idempotencyKey sends once; a different input with the key is a 409", async () => {
  const input = {
    channel: "email",
    to: "ada@contoso.example",
    subject: "Once",
    text: "Only once.",
    idempotencyKey: "send-once-1",
  };
  const before = smtp.received.length;
  const first = await t.s.call("message.send", input, { tenant: "idem-co", requestId: "req_idem_1" });
  const again = await t.s.call("message.send", input, { tenant: "idem-co", requestId: "req_idem_2" });
  assert.equal(again.id, first.id);
  assert.equal(again.requestId, "req_idem_1");
  assert.deepEqual(again, first);
  assert.equal(smtp.received.length, before + 1, "one email on the wire");
  await assert.rejects(t.s.call("message.send", { ...input, subject: "Twice" }, { tenant: "idem-co" }), (err: any) => {
    assert.equal(err.code, "conflict");
    assert.deepEqual(
      err.details.map((d: any) => d.path),
      ["/input/subject"],
    );
    return true;
  });
  // Two concurrent first uses of a key: one send, both answer it.
  const atOnce = { ...input, idempotencyKey: "send-once-concurrent", subject: "Concurrent" };
  const mark = smtp.received.length;
  const [x, y] = await Promise.all([
    t.s.call("message.send", atOnce, { tenant: "idem-co" }),
    t.s.call("message.send", atOnce, { tenant: "idem-co" }),
  ]);
  assert.equal(x.id, y.id);
  assert.equal(x.status, "sent");
  assert.equal(y.status, "sent");
  assert.equal(smtp.received.length, mark + 1, "one email for two concurrent calls");

  // The same key in another tenant is another message.
  const other = await t.s.call("message.send", input, { tenant: "idem-other" });
  assert.notEqual(other.id, first.id);
});

test("message.send: too many recipients is a 400 naming the field", async () => {
  const many = Array.from({ length: 50 }, (_, i) => `u${i}@contoso.example`);
  const cc = Array.from({ length: 50 }, (_, i) => `c${i}@contoso.example`);
  await assert.rejects(
    t.s.call("message.send", { channel: "email", to: many, cc, bcc: ["x@contoso.example"], subject: "s", text: "t" }),
    (err: any) => err.code === "validation_failed" && err.details[0].path === "/input/to",
  );
});

test("message.send_markdown: Markdown in the themed frame with the brand colour; unsafe links stripped; both parts", async () => {
  const markdown = [
    "# Weekly status",
    "",
    "## Done",
    "",
    "- Checkout fix shipped",
    "- [Release notes](https://northwind.example/notes)",
    "",
    "1. Reseller programme",
    "2. Support hire",
    "",
    "| Metric | Value |",
    "|---|---|",
    "| Uptime | 99.98% |",
    "",
    "```",
    "npm run deploy",
    "```",
    "",
    "[click me](javascript:alert(1)) <script>alert(2)</script>",
  ].join("\n");
  const m = await t.s.call(
    "message.send_markdown",
    { to: ["ada@contoso.example", "tunde@contoso.example"], subject: "Weekly status", markdown, brand: "#0a7d32" },
    { tenant: "md-co" },
  );
  assert.equal(m.status, "sent");
  assert.equal(m.recipients.length, 2);
  const p = smtp.received.at(-1)!.parsed;
  const html = String(p.html);
  assert.match(html, /<h1[^>]*style="[^"]*color: #0a7d32[^"]*"[^>]*>Weekly status<\/h1>/);
  assert.match(html, /<li[^>]*>Checkout fix shipped<\/li>/);
  assert.match(html, /<ol[^>]*>/);
  assert.match(html, /<th[^>]*background-color: #0a7d32[^>]*>Metric<\/th>/);
  assert.match(html, /<code[^>]*>npm run deploy/);
  assert.match(html, /<a href="https:\/\/northwind\.example\/notes"[^>]*>Release notes<\/a>/);
  assert.ok(!/javascript:/i.test(html), "the javascript: link is stripped");
  assert.ok(!html.includes("<script>"), "raw HTML is not interpreted");
  assert.match(html, /click me/);
  assert.match(html, /background-color:#0a7d32/, "the header in the brand colour");
  assert.equal(p.text?.trim(), markdown.trim(), "the Markdown is the plain-text part");
});

test("a send a crash interrupted is closed by the sweep: its replay answers failed, saying why, not 409 for ever", async () => {
  const input = {
    channel: "email",
    to: "ada@contoso.example",
    subject: "Cut off",
    text: "…",
    idempotencyKey: "crash-1",
  };
  const first = await t.s.call("message.send", input, { tenant: "crash-co" });
  // As a crash between storing the message and writing back the SMTP answer leaves it.
  await t.s.db.query(
    `UPDATE content.deliveries SET status = 'sending', sent_at = NULL, created_at = now() - interval '1 hour' WHERE id = $1`,
    [first.id],
  );
  await t.s.db.query(`UPDATE content.delivery_recipients SET status = 'pending' WHERE delivery_id = $1`, [first.id]);
  const ctx = t.s.ctx as Parameters<typeof closeInterruptedSends>[0];
  assert.equal(await asSystem(() => closeInterruptedSends(ctx, 60_000)), 1);
  assert.equal(await asSystem(() => closeInterruptedSends(ctx, 60_000)), 0, "idempotent: nothing left to close");
  const replay = await t.s.call("message.send", input, { tenant: "crash-co" });
  assert.equal(replay.id, first.id);
  assert.equal(replay.status, "failed");
  assert.deepEqual(
    replay.recipients.map((r: { status: string; response: string }) => [r.status, r.response]),
    [["failed", INTERRUPTED]],
  );
});
