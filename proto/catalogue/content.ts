/**
 * @module catalogue/content
 * Documents, email rendering and sending, help-centre guides and skills, owned by the content service
 * (spec §4.3 document.summarize, email.render, guide.*, message.send_markdown, skill.load).
 */
import type { AbilityEntry, JsonSchema } from "./types.ts";
import {
  bool,
  enumOf,
  fields,
  int,
  list,
  nullableStr,
  nullableTimestamp,
  num,
  page,
  str,
  timestamp,
} from "./output.ts";
import {
  array,
  constant,
  cursor,
  date,
  dateTime,
  e164,
  email,
  flag,
  idempotencyKey,
  limit,
  line,
  nullable,
  number,
  object,
  oneOfValues,
  slug,
  text,
  url,
} from "./schema.ts";

/** email.render templates (spec §4.3). */
export const EMAIL_TEMPLATES = ["notice", "invoice", "receipt"] as const;

const HEX_COLOUR = "^#[0-9A-Fa-f]{6}$";
const LOCALE_PATTERN = "^[a-z]{2,3}(?:-[A-Z]{2})?$";

function colour(description: string, defaultValue?: string) {
  return text(description, 7, { min: 7, pattern: HEX_COLOUR, default: defaultValue });
}

/** The per-tenant theme of email.render and document.generate (keys are ours; spec §4.3 names them loosely). */
function theme() {
  return object(
    {
      brandColor: colour("Main brand colour, `#RRGGBB` (header, buttons)."),
      accentColor: colour("Secondary colour, `#RRGGBB` (links, highlights)."),
      logoUrl: url("Logo image URL (https recommended; shown in the header)."),
      firmName: line("Business name shown in header and footer.", 200),
      tagline: line("Short line under the business name.", 200),
      siteUrl: url("Business website linked from the footer."),
    },
    [],
    {
      description:
        "Per-tenant theme. Every key is optional; omitted keys use Gantry's neutral default (brand #1e3a5f, accent #2563eb, no logo, firm name, tagline or site). Links and the logo must be http(s); other schemes are dropped.",
    },
  );
}

/** One line item of invoice and receipt props. */
function lineItems() {
  return array(
    "Line items, in display order.",
    object(
      {
        description: line("What was sold.", 500),
        quantity: {
          type: "number",
          description: "Quantity (may be fractional, e.g. hours).",
          exclusiveMinimum: 0,
          maximum: 1_000_000,
        },
        unitAmount: number("Price per unit in major units of `currency`.", 0, 1_000_000_000),
      },
      ["description", "quantity", "unitAmount"],
      { description: "One line item." },
    ),
    200,
    1,
  );
}

const NOTICE_PROPS = object(
  {
    heading: line("Heading at the top of the email.", 200),
    body: text("Body text; blank lines separate paragraphs. Plain text (HTML is escaped).", 20_000),
    actionLabel: line("Label of the call-to-action button. Requires actionUrl.", 60),
    actionUrl: url("Target of the call-to-action button. Requires actionLabel."),
    footer: text("Small print under the body.", 2000),
  },
  ["heading", "body"],
  {
    description: "Props of the `notice` template.",
    dependentRequired: { actionLabel: ["actionUrl"], actionUrl: ["actionLabel"] },
  },
);

const INVOICE_PROPS = object(
  {
    invoiceNumber: line("Invoice number as printed (e.g. INV-2026-0042).", 64),
    issueDate: date("Issue date, YYYY-MM-DD."),
    dueDate: date("Due date, YYYY-MM-DD."),
    customerName: line("Billed customer.", 200),
    customerEmail: email("Billed customer's email (printed; the email is not sent to it by rendering)."),
    currency: text("ISO 4217 currency code of all amounts.", 3, { min: 3, pattern: "^[A-Z]{3}$" }),
    items: lineItems(),
    taxRate: number("Tax rate in percent applied to the subtotal (e.g. 7.5).", 0, 100),
    notes: text("Notes printed under the totals (payment terms, bank details).", 5000),
    payUrl: url("Payment link shown as a Pay button (e.g. from payment.initiate)."),
  },
  ["invoiceNumber", "issueDate", "customerName", "currency", "items"],
  { description: "Props of the `invoice` template. Subtotal, tax and total are computed from items and taxRate." },
);

const RECEIPT_PROPS = object(
  {
    receiptNumber: line("Receipt number as printed.", 64),
    paidAt: dateTime("When the payment was received (RFC 3339)."),
    customerName: line("Paying customer.", 200),
    currency: text("ISO 4217 currency code of all amounts.", 3, { min: 3, pattern: "^[A-Z]{3}$" }),
    items: lineItems(),
    paymentMethod: line('How it was paid (e.g. "Visa •••• 4242").', 100),
    notes: text("Notes printed under the totals.", 5000),
  },
  ["receiptNumber", "paidAt", "customerName", "currency", "items"],
  { description: "Props of the `receipt` template. The total is computed from items." },
);

function whenTemplate(template: string, props: JsonSchema) {
  return {
    if: { properties: { template: { const: template } }, required: ["template"] },
    then: { properties: { props } },
  };
}

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

const SHA256_HEX = "^[0-9a-f]{64}$";

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

function sha256(description: string) {
  return str(description, { pattern: SHA256_HEX });
}

/** Money in a result: integer minor units (exact) plus the same amount in major units, and the currency. */
function moneyOut(description: string) {
  return fields(
    {
      amount: num(
        "Amount in major units of `currency` (e.g. 53.74), equal to `minor` / 10^exponent; for display — compute with `minor`.",
      ),
      currency: str("ISO 4217 currency code, upper case.", { pattern: "^[A-Z]{3}$" }),
      minor: int("Amount in integer minor units of `currency` (e.g. cents): the exact value."),
    },
    [],
    { description },
  );
}

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

/** One guide as listed (guide.list) — the manifest entry. */
function guideEntry() {
  return fields(
    {
      slug: str("Guide slug; its URL path."),
      locale: str("Locale (e.g. en, pt-BR)."),
      title: str("Title."),
      area: str("Index section."),
      summary: nullableStr("Summary shown in the index, or null."),
      time: nullableStr('Reading or task time text (e.g. "5 min"), or null.'),
      cost: nullableStr('Cost text (e.g. "Free"), or null.'),
      route: nullableStr("In-app route the guide explains, or null."),
      order: nullable(
        num("Order."),
        "Position within its section (ascending), or null (listed after ordered guides, by title).",
      ),
      url: str("Public URL of the guide page.", { format: "uri" }),
      updated: nullableTimestamp(
        "When the guide was last published (RFC 3339), or null when the manifest does not say.",
      ),
    },
    [],
    { description: "A guide." },
  );
}

/** A skill as listed (skill.list): its front matter. */
function skillProps() {
  return {
    name: str("Skill name (the `name` of skill.load): lowercase letters, digits and hyphens."),
    description: str("What the skill covers and when to load it (from the SKILL.md front matter)."),
    source: enumOf("`builtin` (shipped with Gantry) or `tenant` (added by your tenant).", ["builtin", "tenant"]),
  };
}

export const abilities = [
  {
    id: "document.generate",
    // A PDF render in Chromium may take CONTENT_PDF_TIMEOUT_MS (30 s by default), plus starting it.
    deadlineMs: 60_000,
    summary:
      "Render Markdown into a styled PDF (headless Chromium) or HTML document with the tenant's theme; stores it and returns a signed download URL that expires.",
    inputSource: "ours",
    input: object(
      {
        title: line("Document title (cover line and file metadata).", 200),
        markdown: text(
          "Document body in Markdown: headings, lists, tables, code blocks, links, images by https URL (kept in HTML; PDFs load nothing from the network, so remote images are left out). Raw HTML is shown as text; links other than http, https and mailto are stripped. A rendered file over the service's size limit (20 MB by default) is refused with 413.",
          500_000,
        ),
        format: oneOfValues("Output format.", ["pdf", "html"], "pdf"),
        filename: text("File name for the download, without extension.", 100, {
          pattern: "^[A-Za-z0-9][A-Za-z0-9 ._-]*$",
        }),
        theme: theme(),
      },
      ["title", "markdown"],
    ),
    output: fields(
      {
        id: prefixedId("art", "Document id (`art_…`): the stored artifact."),
        title: str("Document title, as given."),
        format: enumOf("Format of the file.", ["pdf", "html"]),
        filename: str("File name of the download, with its extension (e.g. `care-plan-proposal.pdf`)."),
        contentType: str("MIME type: `application/pdf` or `text/html; charset=utf-8`."),
        bytes: int("Size of the file in bytes."),
        pages: nullable(int("Pages."), "PDF: number of pages; null for HTML."),
        sha256: sha256("SHA-256 (hex) of the file's bytes."),
        url: str("Signed download URL; works without an API key until `expires`.", { format: "uri" }),
        expires: timestamp("When `url` stops working (RFC 3339)."),
        created: timestamp("When the document was rendered (RFC 3339)."),
      },
      [],
      { description: "The rendered document and where to download it." },
    ),
    example: {
      title: "Website care plan — proposal",
      markdown:
        "# Proposal\n\n## Scope\n\n- Monthly updates\n- Uptime monitoring\n\n| Item | Price |\n|---|---|\n| Care plan | $49.99/month |",
      format: "pdf",
      filename: "care-plan-proposal",
      theme: { brandColor: "#1e3a5f", firmName: "Northwind Studio" },
    },
  },
  {
    id: "document.summarize",
    summary: "Summarize a text at a short, medium or long length.",
    inputSource: "spec",
    input: object(
      {
        text: text("The text to summarize.", 200_000),
        length: oneOfValues(
          "Summary length, as a sentence budget over the n sentences of the text: short = ceil(10% of n), 1 to 3 sentences; medium = ceil(20% of n), 3 to 7; long = ceil(35% of n), 5 to 15; never more than n.",
          ["short", "medium", "long"],
          "medium",
        ),
        method: oneOfValues(
          "`extractive` (default): sentences chosen from the text by the deterministic ranker, each with its offsets; `model`: written by the OpenAI-compatible model endpoint the deployment configures (CONTENT_SUMMARY_MODEL_URL), refused with 400 `model_not_configured` when there is none.",
          ["extractive", "model"],
          "extractive",
        ),
      },
      ["text"],
    ),
    output: fields(
      {
        summary: str("The summary. Extractive: the chosen sentences in input order, joined by single spaces."),
        length: enumOf("Length that was asked for.", ["short", "medium", "long"]),
        method: enumOf(
          "`extractive`: sentences chosen from the text by the deterministic TextRank-style ranker (the default; the same input gives the same summary); `model`: written by the configured OpenAI-compatible model endpoint.",
          ["extractive", "model"],
        ),
        model: nullableStr("Model that wrote the summary when `method` is `model`; null for extractive."),
        sentences: list(
          "Extractive: the summary's sentences in input order, each with its place in the input so it can be checked; empty when `method` is `model`.",
          fields(
            {
              text: str("The sentence exactly as in the input: `input.text.slice(start, end)`."),
              start: int(
                "Offset of its first character in the input, in UTF-16 code units (a JavaScript string index).",
              ),
              end: int("Offset just past its last character (exclusive), in UTF-16 code units."),
              index: int("Its position among the input's sentences (0-based)."),
              score: num("Ranker score, 0..1 (higher is more central to the text)."),
            },
            [],
            { description: "One summary sentence." },
          ),
        ),
        inputChars: int("Length of the input text in UTF-16 code units."),
        inputSentences: int("Number of sentences the segmenter found in the input."),
      },
      [],
      { description: "The summary and, for extractive summaries, where each sentence comes from." },
    ),
    example: {
      text: "Quarterly report. Revenue grew 12% to $1.2M, driven by the care-plan subscriptions launched in February. Churn fell from 4% to 2.5% after onboarding calls were introduced. Costs rose 8%, mainly hosting. Next quarter: launch the reseller programme and hire a second support engineer.",
      length: "short",
    },
  },
  {
    id: "email.render",
    summary: "Render an HTML and a plain-text email from a template spec, deterministically, without sending it.",
    inputSource: "spec",
    input: object(
      {
        spec: object(
          {
            template: oneOfValues("Template to render.", EMAIL_TEMPLATES),
            subject: line("Email subject.", 200),
            props: {
              type: "object",
              maxProperties: 50,
              description:
                "Template properties; the allowed fields depend on `template` (notice, invoice, receipt) and are listed below.",
            },
          },
          ["template", "subject", "props"],
          {
            description: "What to render: template, subject and the template's props.",
            allOf: [
              whenTemplate("notice", NOTICE_PROPS),
              whenTemplate("invoice", INVOICE_PROPS),
              whenTemplate("receipt", RECEIPT_PROPS),
            ],
          },
        ),
        theme: theme(),
      },
      ["spec"],
    ),
    output: fields(
      {
        template: enumOf("Template rendered.", EMAIL_TEMPLATES),
        subject: str("Subject, as given."),
        html: str(
          "HTML part: a complete document with inlined CSS and the theme applied; pass as message.send `html`.",
        ),
        text: str("Plain-text part; pass as message.send `text`."),
        totals: nullable(
          fields(
            {
              subtotal: moneyOut("Sum of quantity × unitAmount over the items."),
              tax: nullable(
                moneyOut("Tax."),
                "Tax at `taxRate` on the subtotal (rounded half-up to the minor unit); null when no taxRate was given (receipts have none).",
              ),
              total: moneyOut("Subtotal plus tax: the amount printed as due or paid."),
            },
            [],
            { description: "Totals." },
          ),
          "Invoice and receipt: the totals as printed, computed from the line items in integer minor units; null for notice.",
        ),
        sha256: sha256(
          "SHA-256 (hex) of `html`: the same input always renders byte-equal output, hence the same hash.",
        ),
      },
      [],
      { description: "The rendered email; nothing was sent." },
    ),
    example: {
      spec: {
        template: "invoice",
        subject: "Invoice INV-2026-0042 from Northwind Studio",
        props: {
          invoiceNumber: "INV-2026-0042",
          issueDate: "2026-05-01",
          dueDate: "2026-05-15",
          customerName: "Contoso Ltd",
          currency: "USD",
          items: [{ description: "Website care plan, May", quantity: 1, unitAmount: 49.99 }],
          taxRate: 7.5,
          payUrl: "https://pay.example.com/l/inv-2026-0042",
        },
      },
      theme: { brandColor: "#1e3a5f", firmName: "Northwind Studio", siteUrl: "https://northwind.example" },
    },
  },
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
  {
    id: "guide.publish",
    summary:
      "Write a Guide Center Markdown guide into a product's guides and optionally build and deploy it; returns its public URL.",
    inputSource: "spec",
    input: object(
      {
        product: slug("Product (recipe) name; must be on the key's product allow-list."),
        slug: slug("kebab-case slug; becomes the URL path.", 100),
        locale: text("Locale of the guide (e.g. en, fr, pt-BR).", 6, {
          min: 2,
          pattern: LOCALE_PATTERN,
          default: "en",
        }),
        title: line("Guide title.", 200),
        area: line("Index section the guide is listed under.", 100),
        summary: line("One-paragraph summary shown in the index.", 500),
        time: line('Reading or task time text (e.g. "5 min").', 50),
        cost: line('Cost text (e.g. "Free", "Included in Pro").', 100),
        route: text("In-app route the guide explains (e.g. /settings/billing).", 500, { pattern: "^/" }),
        order: number("Position within its index section (ascending).", -1_000_000, 1_000_000),
        markdown: text(
          "Guide body: steps, inline labels, callout lines, slip blocks (Guide Center Markdown: GitHub-flavoured Markdown, raw HTML shown as text, plus these four; grammar in services/content/docs/guide-markdown.md). " +
            "Step: a line `Step: Title` starts a step, numbered for you through the guide; its body runs to the next step, heading or end. " +
            "Inline label: `[[Save]]` names an interface element (literal text, one line). " +
            "Callout line: `!tip Text`, kinds note, tip, important, warning, caution (`\\!` starts a plain line with !). " +
            "Slip block: `::: slip Title` … `:::`, a boxed aside of Markdown (no nesting, no steps inside). " +
            "Block constructs start at column 1 and are text inside fenced code. A broken construct is a 400 (`validation_failed`) with one detail per line: `path` /input/markdown, `code` invalid_value, `line`, `fix`; nothing is written.",
          200_000,
        ),
        deploy: flag("Build and deploy after writing; false only writes the file.", true),
      },
      ["product", "slug", "title", "area", "markdown"],
    ),
    output: fields(
      {
        product: str("Product the guide belongs to."),
        slug: str("Guide slug; its URL path."),
        locale: str("Locale of the guide."),
        title: str("Title."),
        area: str("Index section."),
        path: str(
          "Path of the written Markdown file, relative to the product's guides directory (e.g. `en/connect-payments.md`).",
        ),
        action: enumOf(
          "`created`: a new guide; `updated`: the guide with this product, locale and slug was replaced.",
          ["created", "updated"],
        ),
        sha256: sha256("SHA-256 (hex) of the written file."),
        vertical: nullableStr(
          "Vertical the guide belongs to: the context.verticalId it was first published with, or the one a later publish named; null when none did.",
        ),
        deployed: bool("Whether this call built and deployed the help centre (false when `deploy` was false)."),
        url: str(
          "Public URL of the guide page: live when `deployed` is true; otherwise where the next deploy will serve it.",
          { format: "uri" },
        ),
        helpCenterUrl: str("Base URL of the product's help centre.", { format: "uri" }),
        written: timestamp("When the file was written (RFC 3339)."),
        published: nullableTimestamp("When the deploy finished (RFC 3339); null when not deployed."),
      },
      [],
      { description: "The written guide and where it is served." },
    ),
    example: {
      product: "clinic-desk",
      slug: "connect-payments",
      locale: "en",
      title: "Connect your payment account",
      area: "Billing",
      summary: "Take card payments from clients by connecting your payment account.",
      time: "5 min",
      cost: "Free",
      route: "/settings/payments",
      order: 1,
      markdown:
        "1. Open **Settings → Payments**.\n2. Click **Connect**.\n3. Follow the provider's steps.\n\n> Tip: use a business account.",
      deploy: true,
    },
  },
  {
    id: "guide.list",
    summary: "List the guides live on a product's help centre, read from its guide manifest.",
    inputSource: "spec",
    input: object(
      {
        product: slug("Product (recipe) name."),
        locale: text("Only guides in this locale; omit for every locale.", 6, { min: 2, pattern: LOCALE_PATTERN }),
        publicUrl: url("Help-centre base URL, overriding the product's configured one."),
      },
      ["product"],
    ),
    output: fields(
      {
        product: str("Product listed."),
        locale: nullableStr("Locale filtered on, or null for every locale."),
        helpCenterUrl: str("Base URL whose manifest was read (`publicUrl` when given, else the product's).", {
          format: "uri",
        }),
        guides: list("Guides in index order: by area, then order, then title.", guideEntry()),
        generated: nullableTimestamp("When the manifest was built (RFC 3339), or null when it does not say."),
      },
      [],
      { description: "The guides live on the product's help centre, from its manifest." },
    ),
    example: { product: "clinic-desk", locale: "en" },
  },
  {
    id: "skill.list",
    summary: "List the skills and knowledge packs that skill.load can load.",
    inputSource: "ours",
    input: object({
      query: text("Search skill names and descriptions.", 200),
      limit: limit(),
      cursor: cursor(),
    }),
    output: page("Skills, by name.", fields(skillProps(), [], { description: "A skill." })),
    example: { query: "security" },
  },
  {
    id: "skill.load",
    summary:
      "Load a skill or knowledge pack by name for injection into context; `guardrails` returns the hard behavioural rules.",
    inputSource: "spec",
    input: object(
      { name: slug("Skill name (e.g. engineering, ops, security, architecture-gaps, tools, guardrails).") },
      ["name"],
    ),
    output: fields(
      {
        ...skillProps(),
        content: str(
          "The SKILL.md body in Markdown (front matter removed), ready to inject into context; for `guardrails`, the hard behavioural rules.",
        ),
        sha256: sha256("SHA-256 (hex) of `content`, to tell versions apart."),
      },
      [],
      { description: "The skill's content." },
    ),
    example: { name: "guardrails" },
  },
] as const satisfies readonly AbilityEntry[];
