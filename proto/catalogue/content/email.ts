/**
 * @module catalogue/content/email
 * The content service's abilities of the `email` area (Email: deterministic email rendering (nothing is sent)).
 * `proto/catalogue/content.ts` assembles the service's areas in order.
 */
import type { AbilityEntry, JsonSchema } from "../types.ts";
import { enumOf, fields, int, num, str } from "../output.ts";
import { array, date, dateTime, email, line, nullable, number, object, oneOfValues, text, url } from "../schema.ts";
import { theme, sha256 } from "./shared.ts";

/** email.render templates (spec §4.3). */
export const EMAIL_TEMPLATES = ["notice", "invoice", "receipt"] as const;

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

export const abilities = [
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
] as const satisfies readonly AbilityEntry[];
