/**
 * @module gateway/docs/page
 * The HTML of `/docs`. The page holds no key: the parts that do not depend on one (MCP host setup,
 * limits, errors) are rendered here from {@link ./content.ts}; the browser user pastes a key, which
 * the page keeps in memory (or sessionStorage when asked) and sends only in the Authorization header
 * of `GET /v1/abilities`, and its script (`/docs/assets/docs.js`) renders the abilities from that
 * answer. No inline script or style, so the Content-Security-Policy can forbid both.
 */
import { ERROR_ROWS, limitRows, mcpHosts } from "./content.ts";
import type { RateLimitPolicy } from "../rate-limit/types.ts";

export function escapeHtml(s: string): string {
  return s
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** `code` spans for `backticked` words of our own static texts (escaped first). */
function inline(s: string): string {
  return escapeHtml(s).replace(/`([^`]+)`/g, "<code>$1</code>");
}

export interface PageOptions {
  baseUrl: string;
  version: string;
  defaultRateLimit: RateLimitPolicy;
  maxBodyBytes: number;
}

export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function renderPage(o: PageOptions): string {
  const e = escapeHtml;
  const mcpUrl = `${o.baseUrl}/mcp`;
  const hosts = mcpHosts(mcpUrl)
    .map(
      (h, i) => `
      <details class="host" ${i === 0 ? "open" : ""} id="mcp-${e(h.id)}">
        <summary>${e(h.name)} <span class="where">${e(h.where)}</span></summary>
        <div class="snippet"><button type="button" class="copy" data-copy>Copy</button><pre><code class="lang-${e(h.lang)}">${e(h.text)}</code></pre></div>
        ${h.note ? `<p class="note">${e(h.note)}</p>` : ""}
      </details>`,
    )
    .join("");
  const limits = limitRows(o.defaultRateLimit, o.maxBodyBytes, false)
    .map(
      (r, i) =>
        `<tr${i === 0 ? ' id="rate-limit-row"' : ""}${r.ability ? ` data-ability="${e(r.ability)}"` : ""}><td>${e(r.limit)}</td><td class="value">${e(r.value)}</td><td class="applies">${e(r.appliesTo)}</td></tr>`,
    )
    .join("");
  const errors = ERROR_ROWS.map(
    (r) =>
      `<tr><td class="status">${e(r.status)}</td><td><code>${e(r.codes)}</code></td><td>${inline(r.when)}</td><td>${inline(r.action)}</td></tr>`,
  ).join("");

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Gantry API docs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body data-base-url="${e(o.baseUrl)}" data-version="${e(o.version)}">
<header class="top">
  <div class="brand"><span class="logo">Gantry</span> <span class="ver">API ${e(o.version)}</span></div>
  <div class="keybox">
    <label for="api-key">API key</label>
    <input id="api-key" name="gantry-api-key" type="password" autocomplete="off" spellcheck="false" placeholder="gk_…">
    <button id="load" type="button">Show my abilities</button>
    <button id="forget" type="button" hidden>Forget key</button>
    <label class="remember"><input id="remember" type="checkbox"> keep for this tab</label>
  </div>
  <p class="keynote">Your key stays in this browser tab (in memory, or in sessionStorage if you tick the box) and is sent only in the <code>Authorization</code> header to this API, never in a URL.</p>
</header>
<div class="layout">
<nav id="toc" aria-label="Contents">
  <a href="#overview">Overview</a>
  <a href="#abilities">Abilities</a>
  <div id="toc-areas"></div>
  <a href="#mcp">MCP host setup</a>
  <a href="#limits">Limits</a>
  <a href="#errors">Errors</a>
</nav>
<main>
<section id="overview">
  <h1>Gantry API</h1>
  <p>Every operation is an <strong>ability</strong>: send <code>POST ${e(o.baseUrl)}/v1/abilities/{id}</code> with <code>{"input": {...}}</code> (optionally <code>"context": {tenantId, runId, verticalId}</code>), or the generic <code>POST ${e(o.baseUrl)}/abilities/execute</code> with <code>{"ability": id, "input": {...}}</code>. Success is <code>200 {ok: true, ability, result, duration}</code>; every failure is <code>{ok: false, error, code, ability?, reason?, details?, retryAfterMs?, requestId}</code>.</p>
  <p>Machine-readable: <a href="/openapi.json">openapi.json</a> (OpenAPI 3.1). Agents: <code>GET ${e(o.baseUrl)}/docs</code> with <code>Accept: text/markdown</code> and their key get this page as Markdown. The ability <code>capability.discover</code> searches what a key may call.</p>
</section>
<section id="abilities">
  <h2>Abilities</h2>
  <p id="load-status" class="status-line" role="status">Paste a key above to list the abilities it may call.</p>
  <div id="key-summary" hidden></div>
  <input id="filter" type="search" placeholder="Filter abilities by id or words…" hidden aria-label="Filter abilities">
  <div id="ability-list"></div>
</section>
<section id="mcp">
  <h2>MCP host setup</h2>
  <p>Endpoint <code>${e(mcpUrl)}</code> (Streamable HTTP), header <code>Authorization: Bearer &lt;API key&gt;</code>. The tools are the abilities your key may call (tool name = ability id, input schema = the ability's); a tool error carries the same <code>code</code> and message as the HTTP API. Protocol revisions 2026-07-28 (stateless) and 2025-11-25 and earlier (sessions) are served. Set <code>GANTRY_API_KEY</code> in the host's environment, then paste one of these:</p>
  ${hosts}
</section>
<section id="limits">
  <h2>Limits</h2>
  <table><thead><tr><th>Limit</th><th>Value</th><th>Applies to</th></tr></thead><tbody>${limits}</tbody></table>
  <p class="note">Every input's own defaults and bounds are in its schema. Rate-limit state is in the <code>RateLimit</code> and <code>RateLimit-Policy</code> headers of every call.</p>
</section>
<section id="errors">
  <h2>Errors</h2>
  <table><thead><tr><th>Status</th><th>code</th><th>When</th><th>What to do</th></tr></thead><tbody>${errors}</tbody></table>
  <p class="note">Every response carries <code>X-Request-Id</code>, the id of its audit record.</p>
</section>
</main>
</div>
<script src="/docs/assets/docs.js" defer></script>
</body>
</html>
`;
}
