/**
 * @module content/email/templates
 * The email.render templates — `notice`, `invoice`, `receipt` — as MJML bodies for the frame in
 * layout.ts, each with its plain-text part. Props arrive checked by the catalogue schema (per
 * template: required fields, types, lengths, no unknown fields); amounts are checked and totalled in
 * minor units by invoice-totals.ts. Dates print in a fixed locale and UTC so output never depends on the host.
 */
import { formatMoney } from "@gantry/kit/money.ts";
import { computeTotals, type LineItem, type Totals } from "../invoice-totals.ts";
import { escapeHtml, safeUrl, type Theme } from "../theme.ts";
import { renderFrame } from "./layout.ts";

export interface NoticeProps {
  heading: string;
  body: string;
  actionLabel?: string;
  actionUrl?: string;
  footer?: string;
}

export interface InvoiceProps {
  invoiceNumber: string;
  issueDate: string;
  dueDate?: string;
  customerName: string;
  customerEmail?: string;
  currency: string;
  items: LineItem[];
  taxRate?: number;
  notes?: string;
  payUrl?: string;
}

export interface ReceiptProps {
  receiptNumber: string;
  paidAt: string;
  customerName: string;
  currency: string;
  items: LineItem[];
  paymentMethod?: string;
  notes?: string;
}

export type TemplateName = "notice" | "invoice" | "receipt";

export interface Rendered {
  html: string;
  text: string;
  totals: Totals | null;
}

const PROPS = "/input/spec/props";

const DATE = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
const DATE_TIME = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "long",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});

const formatDate = (ymd: string) => DATE.format(new Date(`${ymd}T00:00:00Z`));
const formatDateTime = (iso: string) => `${DATE_TIME.format(new Date(iso))} UTC`;

/** Paragraphs of plain text (blank lines separate them; single newlines become line breaks). */
function paragraphs(text: string): string {
  return text
    .trim()
    .split(/\r?\n\s*\r?\n/)
    .map((p) => `<p>${escapeHtml(p.trim()).replace(/\r?\n/g, "<br />")}</p>`)
    .join("");
}

function heading(text: string, theme: Theme): string {
  return `<mj-text font-size="22px" font-weight="bold" color="${theme.brandColor}" padding="0 0 16px">${escapeHtml(text)}</mj-text>`;
}

function button(label: string, url: string): string {
  return `<mj-button href="${escapeHtml(url)}" align="left" padding="16px 0 8px">${escapeHtml(label)}</mj-button>`;
}

/** A plain-text email: sections separated by blank lines, the firm line last. */
function plain(theme: Theme, sections: Array<string | null | undefined>): string {
  const head = [theme.firmName, theme.tagline].filter(Boolean).join("\n");
  const sign = [theme.firmName, theme.siteUrl].filter(Boolean).join(" · ");
  const parts = [head, ...sections, sign ? `--\n${sign}` : null].filter((s): s is string => Boolean(s?.trim()));
  return `${parts.map((s) => s.trim()).join("\n\n")}\n`;
}

function quantityText(q: number): string {
  return Number.isInteger(q) ? String(q) : String(Number(q.toFixed(6)));
}

/** The line-item table and totals, in HTML (inside mj-text, styled by the `.lines` CSS) and text. */
function lineTable(totals: Totals, totalLabel: string): { html: string; text: string } {
  const c = totals.currency;
  const rows = totals.lines.map(
    (l) =>
      `<tr><td>${escapeHtml(l.description)}</td><td class="num">${quantityText(l.quantity)}</td><td class="num">${formatMoney(l.unitMinor, c)}</td><td class="num">${formatMoney(l.amountMinor, c)}</td></tr>`,
  );
  const sums: Array<[string, bigint]> = [];
  if (totals.tax !== null) sums.push(["Subtotal", totals.subtotal], ["Tax", totals.tax]);
  sums.push([totalLabel, totals.total]);
  const sumRows = sums.map(
    ([label, v], i) =>
      `<tr${i === sums.length - 1 ? ' class="total"' : ""}><td colspan="3" class="num">${label}</td><td class="num">${formatMoney(v, c)}</td></tr>`,
  );
  const html = `<mj-text padding="8px 0"><table class="lines" width="100%" cellpadding="0" cellspacing="0" role="presentation"><thead><tr><th>Item</th><th class="num">Qty</th><th class="num">Unit</th><th class="num">Amount</th></tr></thead><tbody>${rows.join("")}${sumRows.join("")}</tbody></table></mj-text>`;
  const textLines = totals.lines.map(
    (l) =>
      `- ${l.description}: ${quantityText(l.quantity)} × ${formatMoney(l.unitMinor, c)} = ${formatMoney(l.amountMinor, c)}`,
  );
  const textSums = sums.map(([label, v]) => `${label}: ${formatMoney(v, c)}`);
  return { html, text: `${textLines.join("\n")}\n\n${textSums.join("\n")}` };
}

async function notice(subject: string, p: NoticeProps, theme: Theme): Promise<Rendered> {
  const action = p.actionLabel && p.actionUrl ? safeUrl(p.actionUrl) : null;
  const body = [
    heading(p.heading, theme),
    `<mj-text padding="0">${paragraphs(p.body)}</mj-text>`,
    action && p.actionLabel ? button(p.actionLabel, action) : "",
  ].join("");
  const html = await renderFrame({ subject, theme, body, footer: p.footer ? paragraphs(p.footer) : null });
  const text = plain(theme, [p.heading, p.body, action ? `${p.actionLabel}: ${action}` : null, p.footer]);
  return { html, text, totals: null };
}

async function invoice(subject: string, p: InvoiceProps, theme: Theme): Promise<Rendered> {
  const totals = computeTotals(p.currency, p.items, p.taxRate, PROPS);
  const table = lineTable(totals, p.dueDate ? "Total due" : "Total");
  const pay = p.payUrl ? safeUrl(p.payUrl) : null;
  const facts = [
    `Invoice number: ${p.invoiceNumber}`,
    `Issued: ${formatDate(p.issueDate)}`,
    p.dueDate ? `Due: ${formatDate(p.dueDate)}` : null,
    `Billed to: ${p.customerName}${p.customerEmail ? ` <${p.customerEmail}>` : ""}`,
  ].filter((s): s is string => s !== null);
  const body = [
    heading(`Invoice ${p.invoiceNumber}`, theme),
    `<mj-text padding="0 0 8px">${facts.map((f) => escapeHtml(f)).join("<br />")}</mj-text>`,
    table.html,
    pay ? button(`Pay ${formatMoney(totals.total, totals.currency)}`, pay) : "",
    p.notes ? `<mj-text padding="8px 0 0" font-size="13px" color="#4b5563">${paragraphs(p.notes)}</mj-text>` : "",
  ].join("");
  const html = await renderFrame({ subject, theme, body });
  const text = plain(theme, [
    `Invoice ${p.invoiceNumber}`,
    facts.join("\n"),
    table.text,
    pay ? `Pay online: ${pay}` : null,
    p.notes,
  ]);
  return { html, text, totals };
}

async function receipt(subject: string, p: ReceiptProps, theme: Theme): Promise<Rendered> {
  const totals = computeTotals(p.currency, p.items, undefined, PROPS);
  const table = lineTable(totals, "Total paid");
  const facts = [
    `Receipt number: ${p.receiptNumber}`,
    `Paid: ${formatDateTime(p.paidAt)}`,
    `Received from: ${p.customerName}`,
    p.paymentMethod ? `Payment method: ${p.paymentMethod}` : null,
  ].filter((s): s is string => s !== null);
  const body = [
    heading(`Receipt ${p.receiptNumber}`, theme),
    `<mj-text padding="0 0 8px">${facts.map((f) => escapeHtml(f)).join("<br />")}</mj-text>`,
    table.html,
    p.notes ? `<mj-text padding="8px 0 0" font-size="13px" color="#4b5563">${paragraphs(p.notes)}</mj-text>` : "",
  ].join("");
  const html = await renderFrame({ subject, theme, body });
  const text = plain(theme, [`Receipt ${p.receiptNumber}`, facts.join("\n"), table.text, p.notes]);
  return { html, text, totals };
}

/** Renders one template. Props are schema-checked by the caller's validation. */
export function renderTemplate(
  template: TemplateName,
  subject: string,
  props: Record<string, unknown>,
  theme: Theme,
): Promise<Rendered> {
  switch (template) {
    case "notice":
      return notice(subject, props as unknown as NoticeProps, theme);
    case "invoice":
      return invoice(subject, props as unknown as InvoiceProps, theme);
    case "receipt":
      return receipt(subject, props as unknown as ReceiptProps, theme);
  }
}

/** A Markdown body (already sanitized HTML) in the frame: message.send_markdown. */
export async function renderMarkdownEmail(subject: string, bodyHtml: string, theme: Theme): Promise<string> {
  return renderFrame({ subject, theme, body: `<mj-text padding="0"><div class="md">${bodyHtml}</div></mj-text>` });
}
