/**
 * @module content/document
 * The standalone HTML page of document.generate (and the page Chromium prints to PDF): the title,
 * the sanitized Markdown body and the tenant theme, with print CSS (A4, tables that do not split
 * rows, code that wraps). No script, no external stylesheet.
 */
import { escapeHtml, type Theme } from "./theme.ts";

export function documentHtml(title: string, bodyHtml: string, t: Theme): string {
  const brand = t.firmName
    ? `<div class="firm">${escapeHtml(t.firmName)}${t.tagline ? `<span class="tagline">${escapeHtml(t.tagline)}</span>` : ""}</div>`
    : "";
  const site = t.siteUrl
    ? `<a href="${escapeHtml(t.siteUrl)}">${escapeHtml(t.siteUrl.replace(/^https?:\/\//, "").replace(/\/$/, ""))}</a>`
    : "";
  const footer = [t.firmName ? escapeHtml(t.firmName) : "", site].filter(Boolean).join(" · ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
@page { size: A4; }
body { font-family: "Helvetica Neue", Helvetica, Arial, "DejaVu Sans", sans-serif; color: #111827; font-size: 11pt; line-height: 1.55; margin: 0; }
header { border-bottom: 4px solid ${t.brandColor}; padding: 0 0 12px; margin: 0 0 20px; }
header .firm { color: ${t.brandColor}; font-weight: bold; font-size: 12pt; }
header .tagline { display: block; color: #6b7280; font-weight: normal; font-size: 9pt; }
header h1.title { font-size: 22pt; color: ${t.brandColor}; margin: 8px 0 0; }
main h1 { font-size: 18pt; color: ${t.brandColor}; }
main h2 { font-size: 14pt; color: ${t.brandColor}; border-bottom: 1px solid #e5e7eb; padding-bottom: 2px; }
main h3 { font-size: 12pt; color: ${t.brandColor}; }
a { color: ${t.accentColor}; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 12px; }
tr { break-inside: avoid; }
th { background: ${t.brandColor}; color: #fff; text-align: left; padding: 5px 8px; }
td { border: 1px solid #d1d5db; padding: 5px 8px; }
code { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 9.5pt; background: #f3f4f6; padding: 0 3px; }
pre { background: #f3f4f6; padding: 10px; white-space: pre-wrap; word-break: break-word; }
pre code { padding: 0; }
blockquote { border-left: 4px solid ${t.accentColor}; margin: 0 0 12px; padding: 2px 12px; color: #4b5563; }
img { max-width: 100%; }
footer { margin-top: 28px; border-top: 1px solid #e5e7eb; padding-top: 8px; color: #6b7280; font-size: 9pt; }
</style>
</head>
<body>
<header>${brand}<h1 class="title">${escapeHtml(title)}</h1></header>
<main>
${bodyHtml}
</main>
${footer ? `<footer>${footer}</footer>` : ""}
</body>
</html>
`;
}
