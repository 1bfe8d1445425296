/**
 * @module catalogue/content/message
 * The content service's abilities of the `message` area (Messages: email and SMS delivery).
 * `proto/catalogue/content.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { enumOf, fields, int, list, nullableStr, nullableTimestamp, str, timestamp } from "../output.ts";
import { array, constant, e164, email, idempotencyKey, line, nullable, object, text } from "../schema.ts";
import { colour, prefixedId } from "./shared.ts";

/** Recipients: one address or a list of up to 50. */
function recipients(description: string) {
  return {
    description,
    anyOf: [
      email("One recipient address."),
      array("Several recipient addresses.", email("A recipient address."), 50, 1, true),
    ],
  };
}

/** A sender: `ada@example.com` or `Ada Obi <ada@example.com>`. */
function sender(description: string) {
  return {
    description,
    anyOf: [
      email("A bare address."),
      text("A display name and address.", 320, {
        pattern: "^[^<>\\r\\n]{1,100} <[^<>\\s@]+@[^<>\\s@.]+(?:\\.[^<>\\s@.]+)+>$",
      }),
    ],
  };
}

// ---- Results ----------------------------------------------------------------------------------

/**
 * Overall status of a sent message: `sent` (every recipient accepted), `partially_sent`, `failed` (none),
 * `captured` (no SMTP server is configured: stored in the outbox, not delivered).
 */
export const MESSAGE_STATUSES = ["sent", "partially_sent", "failed", "captured"] as const;

/**
 * Per-recipient status: the SMTP server (or SMS provider) `accepted` or `rejected` it, or sending
 * `failed`; `captured` when the message went to the outbox.
 */
export const RECIPIENT_STATUSES = ["accepted", "rejected", "failed", "captured"] as const;

/** A record's vertical: the call's context.verticalId when it was made (issue 32 item 7). */
function recordVertical(what: string) {
  return nullableStr(`Vertical the ${what} belongs to (from the call's context.verticalId), or null.`);
}

/** A sent message (message.send, message.send_markdown): one record, a status per recipient. */
function message(description: string) {
  return fields(
    {
      id: prefixedId("msg", "Message id (`msg_…`)."),
      tenant: str("Tenant that sent the message."),
      channel: enumOf("Channel it was sent on.", ["email", "sms"]),
      status: enumOf(
        "sent: every recipient accepted; partially_sent: some accepted, some not (see `recipients`); failed: none accepted; captured: NOT delivered — no SMTP server is configured, so the message was stored in the outbox (see `transport`).",
        MESSAGE_STATUSES,
      ),
      transport: enumOf(
        "`smtp`: handed to an SMTP server; `outbox`: no SMTP server is configured (no email connection or platform account, no CONTENT_SMTP_URL), so the message was only stored, never delivered; `twilio`: SMS over Twilio's Messages API, one request per recipient.",
        ["smtp", "outbox", "twilio"],
      ),
      from: str("Sender actually used (the given one, or the connection's or platform's default)."),
      subject: nullableStr("Email subject; null for SMS."),
      recipients: list(
        "Every recipient, in input order (to, then cc, then bcc), with what the server answered for it.",
        fields(
          {
            address: str("Email address, or E.164 number for SMS."),
            field: enumOf("Which recipient field it came from (`to` for SMS).", ["to", "cc", "bcc"]),
            status: enumOf(
              "accepted: the server took it for delivery (not proof of arrival in the inbox); rejected: the server refused this recipient; failed: it could not be offered (connection or provider error); captured: stored in the outbox, not delivered.",
              RECIPIENT_STATUSES,
            ),
            responseCode: nullable(
              int("Code."),
              "SMTP reply code for this recipient (e.g. 250, 550) or the SMS provider's HTTP status; null when none was received. For an accepted recipient it is the server's reply to the message data (when it took responsibility); for a rejected one, its reply to RCPT TO.",
            ),
            response: nullableStr(
              'The server\'s reply text for this recipient (e.g. "250 2.1.5 OK"; for SMS the provider\'s message status such as "queued", or its error such as "error 21211: Invalid \'To\' Phone Number"); null when none was received.',
            ),
            providerMessageId: nullableStr(
              "SMS: the provider's id of this recipient's message (Twilio `SM…`), to look it up there; null for email or when the provider took nothing.",
            ),
          },
          [],
          { description: "One recipient." },
        ),
      ),
      messageId: nullableStr(
        "Email: the Message-ID header sent (`<…@…>`); SMS: the provider's id of the first accepted recipient's message (each recipient's is its `providerMessageId`). Null when nothing was accepted.",
      ),
      segments: nullable(int("Segments."), "SMS: number of segments the text was split into; null for email."),
      credentialSource: enumOf(
        "Whose account sent it: `tenant` (the tenant's connection for the channel) or `platform` (the platform account: no usable connection).",
        ["tenant", "platform"],
      ),
      vertical: recordVertical("message"),
      requestId: str(
        "Request id (`req_…`) of the call that sent it: a receipt trust claims can cite. A replay with the same idempotencyKey returns the first result, so this is then the first call's id.",
      ),
      created: timestamp("When the message was accepted by Gantry (RFC 3339)."),
      sent: nullableTimestamp("When the server accepted it (RFC 3339); null when no recipient was accepted."),
    },
    [],
    { description },
  );
}

export const abilities = [
  {
    id: "message.send",
    summary: "Send an email or SMS through the tenant's connection, or the platform account when it has none.",
    inputSource: "ours",
    input: {
      type: "object",
      description: "One of two variants, selected by `channel`: email or sms.",
      oneOf: [
        object(
          {
            channel: constant("`email`.", "email"),
            to: recipients("Recipient address, or a list of up to 50."),
            cc: array("Carbon-copy addresses.", email("An address."), 50, 1, true),
            bcc: array("Blind-copy addresses.", email("An address."), 50, 1, true),
            subject: line("Email subject.", 200),
            text: text("Plain-text body. At least one of text and html is required.", 200_000),
            html: text("HTML body (e.g. from email.render). At least one of text and html is required.", 500_000),
            from: sender("Sender; the connection's (or platform's) default sender when omitted."),
            replyTo: email("Reply-to address."),
            idempotencyKey: idempotencyKey("the message (it is sent once)"),
          },
          ["channel", "to", "subject"],
          {
            title: "email",
            description: "Send an email.",
            anyOf: [
              { properties: { text: true }, required: ["text"] },
              { properties: { html: true }, required: ["html"] },
            ],
          },
        ),
        object(
          {
            channel: constant("`sms`.", "sms"),
            to: {
              description: "Recipient number in E.164, or a list of up to 50.",
              anyOf: [e164("One number."), array("Several numbers.", e164("A number."), 50, 1, true)],
            },
            text: text(
              "Message text, up to 1,600 characters (Twilio's limit); over 160 GSM-7 characters (70 with other characters) it is split into segments, each charged.",
              1600,
            ),
            from: text(
              "Sender: a number of the SMS account in E.164 or an alphanumeric sender id (1..11 letters, digits, spaces); the account's default sender when omitted.",
              16,
              {
                pattern: "^(?:\\+[1-9][0-9]{6,14}|[A-Za-z0-9 ]{1,11})$",
              },
            ),
            idempotencyKey: idempotencyKey("the message (it is sent once to each number)"),
          },
          ["channel", "to", "text"],
          {
            title: "sms",
            description:
              "Send an SMS over Twilio's Messages API, one message per number, through the tenant's `sms` connection or the platform's Twilio account; answers 501 when this deployment has none (discovery's `needs` names the variables).",
          },
        ),
      ],
    },
    output: message("The message and what the server answered for each recipient."),
    example: {
      channel: "email",
      to: "billing@contoso.example",
      subject: "Invoice INV-2026-0042 from Northwind Studio",
      text: "Hello, your invoice INV-2026-0042 for $53.74 is due on 15 May: https://pay.example.com/l/inv-2026-0042",
      idempotencyKey: "send-inv-2026-0042",
    },
  },
  {
    id: "message.send_markdown",
    summary: "Send an email whose body is rendered from Markdown into styled HTML.",
    inputSource: "spec",
    input: object(
      {
        to: recipients("One recipient address, or a list of up to 50."),
        subject: line("Email subject.", 200),
        markdown: text(
          "Body in Markdown; headings, lists, tables, code blocks and links render. Raw HTML is shown as text; links other than http, https and mailto (e.g. `javascript:`) are stripped (their text stays). Also sent as the plain-text part.",
          200_000,
        ),
        from: sender("Sender; a default sender applies when omitted."),
        replyTo: email("Reply-to address."),
        brand: colour("Brand colour as hex `#RRGGBB`.", "#1e3a5f"),
        idempotencyKey: idempotencyKey("the message (it is sent once)"),
      },
      ["to", "subject", "markdown"],
    ),
    output: message(
      "The message (channel `email`, body rendered from the Markdown) and what the server answered for each recipient.",
    ),
    example: {
      to: ["ada@northwind.example", "tunde@northwind.example"],
      subject: "Weekly status",
      markdown: "## Done\n\n- Checkout fix shipped\n\n## Next\n\n1. Reseller programme\n2. Support hire",
      replyTo: "ops@northwind.example",
    },
  },
] as const satisfies readonly AbilityEntry[];
