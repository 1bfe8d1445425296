/**
 * @module content/email/layout
 * The one email frame every template and Markdown body is rendered in, written in MJML (renders in
 * real clients: tables, Outlook conditionals, CSS inlined by MJML's `mj-style inline`): a header in
 * the brand colour with the logo or firm name and tagline, the body, and a footer with the firm name
 * and site link. Deterministic: no dates, ids or randomness enter the markup, so the same input is
 * byte-equal output (a test proves it).
 */
import type mjml2htmlFn from "mjml";
import { GantryError } from "@gantry/kit";
import { escapeHtml, type Theme } from "../theme.ts";

// MJML and its dependencies hold ≈ 90 MiB once loaded, and most content calls never render an
// email: it is loaded on the first render, not with the service.
let mjml: Promise<typeof mjml2htmlFn> | undefined;
const loadMjml = () => (mjml ??= import("mjml").then((m) => m.default));

/** CSS inlined into the Markdown body (`.md` …) and the templates' tables. */
const BODY_CSS = (t: Theme) => `
.md h1 { font-size: 24px; line-height: 1.3; margin: 0 0 16px; color: ${t.brandColor}; }
.md h2 { font-size: 20px; line-height: 1.3; margin: 24px 0 12px; color: ${t.brandColor}; }
.md h3 { font-size: 16px; line-height: 1.3; margin: 20px 0 8px; color: ${t.brandColor}; }
.md p { margin: 0 0 12px; }
.md a { color: ${t.accentColor}; text-decoration: underline; }
.md ul, .md ol { margin: 0 0 12px; padding-left: 24px; }
.md li { margin: 0 0 4px; }
.md table { border-collapse: collapse; width: 100%; margin: 0 0 12px; }
.md th { background-color: ${t.brandColor}; color: #ffffff; text-align: left; padding: 6px 8px; border: 1px solid ${t.brandColor}; }
.md td { padding: 6px 8px; border: 1px solid #d1d5db; }
.md code { font-family: Menlo, Consolas, monospace; font-size: 13px; background-color: #f3f4f6; padding: 1px 4px; }
.md pre { background-color: #f3f4f6; padding: 12px; overflow-x: auto; margin: 0 0 12px; }
.md pre code { padding: 0; }
.md blockquote { border-left: 4px solid ${t.accentColor}; margin: 0 0 12px; padding: 4px 12px; color: #4b5563; }
.lines th { text-align: left; padding: 6px 4px; border-bottom: 2px solid ${t.brandColor}; color: ${t.brandColor}; }
.lines td { padding: 6px 4px; border-bottom: 1px solid #e5e7eb; }
.lines .num { text-align: right; }
.lines .total td { font-weight: bold; border-bottom: none; }
`;

function header(t: Theme): string {
  const parts: string[] = [];
  if (t.logoUrl) {
    const alt = escapeHtml(t.firmName ?? "Logo");
    parts.push(`<mj-image src="${escapeHtml(t.logoUrl)}" alt="${alt}" width="160px" align="left" padding="0 0 8px" />`);
  } else if (t.firmName) {
    parts.push(
      `<mj-text font-size="22px" font-weight="bold" color="#ffffff" padding="0">${escapeHtml(t.firmName)}</mj-text>`,
    );
  }
  if (t.tagline)
    parts.push(`<mj-text font-size="13px" color="#ffffff" padding="4px 0 0">${escapeHtml(t.tagline)}</mj-text>`);
  if (!parts.length) parts.push(`<mj-spacer height="8px" />`);
  return `<mj-section background-color="${t.brandColor}" padding="20px 24px"><mj-column>${parts.join("")}</mj-column></mj-section>`;
}

function footer(t: Theme, extra: string | null): string {
  const lines: string[] = [];
  if (extra) lines.push(extra);
  const name = t.firmName ? escapeHtml(t.firmName) : null;
  const site = t.siteUrl
    ? `<a href="${escapeHtml(t.siteUrl)}" style="color:${t.accentColor};">${escapeHtml(t.siteUrl.replace(/^https?:\/\//, "").replace(/\/$/, ""))}</a>`
    : null;
  const sign = [name, site].filter(Boolean).join(" · ");
  if (sign) lines.push(sign);
  if (!lines.length) return "";
  return `<mj-section padding="16px 24px"><mj-column><mj-text font-size="12px" color="#6b7280" line-height="1.5" padding="0">${lines.join("<br />")}</mj-text></mj-column></mj-section>`;
}

export interface Frame {
  subject: string;
  theme: Theme;
  /** MJML elements that go inside the body column (`mj-text`, `mj-button`, `mj-table`, …). */
  body: string;
  /** Small print (already escaped HTML) above the firm line. */
  footer?: string | null;
}

/** Renders a framed email to a complete HTML document with inlined CSS. */
export async function renderFrame(frame: Frame): Promise<string> {
  const t = frame.theme;
  const source = `<mjml lang="en">
<mj-head>
<mj-title>${escapeHtml(frame.subject)}</mj-title>
<mj-attributes><mj-all font-family="Helvetica, Arial, sans-serif" /><mj-text font-size="15px" line-height="1.6" color="#111827" /><mj-button background-color="${t.brandColor}" color="#ffffff" font-size="15px" border-radius="4px" /></mj-attributes>
<mj-style inline="inline">${BODY_CSS(t)}</mj-style>
</mj-head>
<mj-body background-color="#f4f5f7" width="600px">
${header(t)}
<mj-section background-color="#ffffff" padding="24px"><mj-column>${frame.body}</mj-column></mj-section>
${footer(t, frame.footer ?? null)}
</mj-body>
</mjml>`;
  const mjml2html = await loadMjml();
  const out = await mjml2html(source, { validationLevel: "strict", minify: false, keepComments: true });
  if (out.errors.length) {
    // Our own templates produced invalid MJML: a bug here, not the caller's input.
    throw new GantryError("internal", "The email template could not be rendered.", {
      cause: new Error(out.errors.map((e) => e.formattedMessage).join("; ")),
    });
  }
  return out.html;
}
