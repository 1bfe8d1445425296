/**
 * @module gateway/docs/content
 * The content of the per-credential docs, shared by the HTML page (static parts rendered into the
 * page; per-key parts rendered by its script from `GET /v1/abilities`, with the same snippet
 * format as here) and the Markdown answer for agents (`Accept: text/markdown`), so both say the same:
 * the key's abilities grouped by area (schema, fields, example request as curl and fetch, errors),
 * MCP host setup with ready-to-paste configurations, limits (rate limit, body size, spec §8
 * defaults, read from the catalogue) and the error table. Snippets never contain the key: they read
 * it from `GANTRY_API_KEY`.
 */
import { abilityById, decisions, type JsonSchema } from "@gantry/proto/catalogue";
import { inputFields, needsText, type AbilityView } from "../discovery/abilities.ts";
import { STATUS_TEXT } from "../discovery/live-status.ts";
import type { RateLimitPolicy } from "../rate-limit/types.ts";

export const KEY_ENV = "GANTRY_API_KEY";

export interface McpHost {
  id: string;
  name: string;
  /** Where the snippet goes. */
  where: string;
  lang: "shell" | "json" | "toml";
  text: string;
  note?: string;
}

/** Ready-to-paste MCP host configurations for the endpoint `mcpUrl`. */
export function mcpHosts(mcpUrl: string): McpHost[] {
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    {
      id: "claude-code",
      name: "Claude Code",
      where: "Terminal (adds the server to Claude Code's config)",
      lang: "shell",
      text: `claude mcp add --transport http gantry ${mcpUrl} \\\n  --header "Authorization: Bearer $${KEY_ENV}"`,
    },
    {
      id: "cursor",
      name: "Cursor",
      where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
      lang: "json",
      text: json({ mcpServers: { gantry: { url: mcpUrl, headers: { Authorization: `Bearer \${env:${KEY_ENV}}` } } } }),
      note: `Cursor reads ${KEY_ENV} from its environment.`,
    },
    {
      id: "vscode",
      name: "VS Code (GitHub Copilot agent mode)",
      where: ".vscode/mcp.json",
      lang: "json",
      text: json({
        inputs: [{ type: "promptString", id: "gantry-api-key", description: "Gantry API key", password: true }],
        servers: {
          gantry: { type: "http", url: mcpUrl, headers: { Authorization: "Bearer ${input:gantry-api-key}" } },
        },
      }),
      note: "VS Code asks for the key once and stores it securely.",
    },
    {
      id: "claude-desktop",
      name: "Claude Desktop",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config)",
      lang: "json",
      text: json({
        mcpServers: {
          gantry: {
            command: "npx",
            args: ["-y", "mcp-remote", mcpUrl, "--header", "Authorization:${GANTRY_AUTH}"],
            env: { GANTRY_AUTH: "Bearer YOUR_API_KEY" },
          },
        },
      }),
      note: "Bridged with mcp-remote (needs Node.js). The header value has no space after the colon on purpose; the space lives in GANTRY_AUTH.",
    },
    {
      id: "codex",
      name: "OpenAI Codex CLI",
      where: "~/.codex/config.toml",
      lang: "toml",
      text: `[mcp_servers.gantry]\nurl = "${mcpUrl}"\nbearer_token_env_var = "${KEY_ENV}"`,
    },
    {
      id: "gemini",
      name: "Gemini CLI",
      where: "Terminal (writes ~/.gemini/settings.json)",
      lang: "shell",
      text: `gemini mcp add --transport http --header "Authorization: Bearer $${KEY_ENV}" gantry ${mcpUrl}`,
    },
    {
      id: "raw",
      name: "Any client (raw HTTP, protocol 2026-07-28)",
      where: "Terminal: one stateless JSON-RPC request, no session",
      lang: "shell",
      text: [
        `curl -sS ${mcpUrl} \\`,
        `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
        `  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \\`,
        `  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' \\`,
        `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}'`,
      ].join("\n"),
      note: "Clients speaking 2025-11-25 send initialize first and keep the Mcp-Session-Id they get back.",
    },
  ];
}

export interface ErrorRow {
  status: string;
  codes: string;
  when: string;
  action: string;
}

export const ERROR_ROWS: readonly ErrorRow[] = [
  {
    status: "400",
    codes: "invalid_request, invalid_json, validation_failed",
    when: "The body lacks `input`, is not JSON, or the input fails the ability's schema or holds a NUL character, U+0000 (`details` lists every error with its JSON Pointer).",
    action: "Fix the input; do not retry unchanged.",
  },
  {
    status: "401",
    codes: "unauthorized",
    when: "No bearer key, or one that is unknown, revoked or expired.",
    action: "Send `Authorization: Bearer <key>` with a valid key.",
  },
  {
    status: "403",
    codes: "forbidden",
    when: "The key's scopes exclude the ability, or `context.tenantId` without the sub-tenant flag.",
    action: "Use a key whose scopes include the ability.",
  },
  {
    status: "404",
    codes: "unknown_ability, not_found",
    when: "`details[].code` says which: `ability_not_found` (the spec's 404: no ability has that id), `record_not_found` (the ability exists; the record named at `details[].path` does not exist for this tenant) or `route_not_found` (no such gateway path).",
    action: "ability_not_found: check the id (GET /v1/abilities); record_not_found: check the id at `path`.",
  },
  {
    status: "409",
    codes: "conflict",
    when: "The input conflicts with the current state, e.g. an idempotencyKey reused with different input.",
    action: "Use a new idempotencyKey, or resend the original input.",
  },
  {
    status: "413",
    codes: "payload_too_large",
    when: "The body exceeds the size limit.",
    action: "Send less per call.",
  },
  { status: "415", codes: "unsupported_media_type", when: "The body is not `application/json`.", action: "Send JSON." },
  {
    status: "429",
    codes: "rate_limited",
    when: "Too many requests for this key in the current window.",
    action: "Wait `retryAfterMs` (also `Retry-After`), then retry.",
  },
  {
    status: "501",
    codes: "not_implemented",
    when: "The ability is declared but not wired yet.",
    action: "Check its status; do not retry.",
  },
  {
    status: "502/504",
    codes: "upstream_failed, timeout",
    when: "A provider failed or the ability did not finish in time (message sanitized).",
    action: "Retry later; quote X-Request-Id.",
  },
  {
    status: "503",
    codes: "unavailable",
    when: "The service owning the ability is not reachable.",
    action: "Retry after `retryAfterMs`.",
  },
  {
    status: "500",
    codes: "internal",
    when: "The ability failed (message sanitized).",
    action: "Quote the X-Request-Id when reporting it.",
  },
];

/**
 * The spec §8 defaults, each with what it means in plain words; values and bounds are read from
 * the catalogue schemas (so docs and validation cannot disagree). `unit` follows the number.
 */
const SPEC8: readonly { id: string; field: string; what: string; unit?: string }[] = [
  {
    id: "key.rotate",
    field: "overlapHours",
    what: "How long the old key keeps working after a rotation",
    unit: "hours",
  },
  { id: "memory.search", field: "limit", what: "Memories a search returns", unit: "results" },
  { id: "memory.recall", field: "k", what: "Memories a recall returns", unit: "memories" },
  { id: "guide.publish", field: "locale", what: "Language of a published guide" },
  { id: "guide.publish", field: "deploy", what: "Whether publishing a guide also deploys it" },
  { id: "document.summarize", field: "length", what: "Length of a summary" },
  { id: "key.list", field: "includeRevoked", what: "Whether key lists include revoked keys" },
  { id: "vertical.manifest_get", field: "section", what: "Which part of a vertical manifest is returned" },
];

export interface LimitRow {
  limit: string;
  value: string;
  appliesTo: string;
  /** The ability a row is about; absent for rows about every call. */
  ability?: string;
}

function plainDefault(value: unknown): string {
  if (value === true) return "yes";
  if (value === false) return "no";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function fieldSchema(id: string, field: string): JsonSchema | undefined {
  const def = abilityById.get(id);
  if (!def) return undefined;
  const direct = (def.input.properties as Record<string, JsonSchema> | undefined)?.[field];
  if (direct) return direct;
  for (const alt of ((def.input.oneOf ?? def.input.anyOf) as JsonSchema[] | undefined) ?? []) {
    const p = (alt.properties as Record<string, JsonSchema> | undefined)?.[field];
    if (p) return p;
  }
  return undefined;
}

/**
 * The Limits table. With `abilities` (the ids a key may call), the rows about one ability are only
 * those of the key's own abilities; without (the page before a key is pasted), all of them, each
 * tagged with its ability so the page's script can hide the ones the pasted key cannot call.
 */
export function limitRows(
  rateLimit: RateLimitPolicy,
  maxBodyBytes: number,
  perKey: boolean,
  abilities?: readonly string[],
): LimitRow[] {
  const rows: LimitRow[] = [
    {
      limit: "Rate limit",
      value: `${rateLimit.limit} requests per ${rateLimit.windowSeconds} s`,
      appliesTo: perKey
        ? "this key (429 with retryAfterMs beyond it)"
        : "each key without its own limit (429 with retryAfterMs beyond it)",
    },
    {
      limit: "Largest request body",
      value: `${maxBodyBytes} bytes (${Math.round(maxBodyBytes / 1024)} KiB)`,
      appliesTo: "every call (413 beyond it)",
    },
    {
      limit: "How soon a revoked or rotated-out key stops working",
      value: "at once as a rule (gateways are notified); at most 30 seconds",
      appliesTo: "every key",
    },
  ];
  for (const { id, field, what, unit } of SPEC8) {
    if (abilities && !abilities.includes(id)) continue;
    const s = fieldSchema(id, field);
    if (!s) continue;
    const range =
      typeof s.minimum === "number" && typeof s.maximum === "number"
        ? ` (you may choose ${s.minimum} to ${s.maximum})`
        : "";
    rows.push({
      limit: what,
      value: `${plainDefault(s.default)}${unit ? ` ${unit}` : ""} unless you set ${field}${range}`,
      appliesTo: id,
      ability: id,
    });
  }
  return rows;
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

export function curlSnippet(baseUrl: string, id: string, example: unknown): string {
  return [
    `curl -sS -X POST ${baseUrl}/v1/abilities/${id} \\`,
    `  -H "Authorization: Bearer $${KEY_ENV}" \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellQuote(JSON.stringify({ input: example }))}`,
  ].join("\n");
}

export function fetchSnippet(baseUrl: string, id: string, example: unknown): string {
  const body = JSON.stringify({ input: example }, null, 2).replaceAll("\n", "\n  ");
  return [
    `const res = await fetch("${baseUrl}/v1/abilities/${id}", {`,
    '  method: "POST",',
    `  headers: { Authorization: \`Bearer \${process.env.${KEY_ENV}}\`, "Content-Type": "application/json" },`,
    `  body: JSON.stringify(${body}),`,
    "});",
    "const body = await res.json(); // {ok, ability, result, duration} or {ok: false, error, code, ...}",
    "if (!body.ok) throw new Error(`${body.code}: ${body.error}`);",
  ].join("\n");
}

/** Status codes an ability's callers should expect, given its live status and needs. */
export function abilityErrors(a: Pick<AbilityView, "status" | "needs">): string[] {
  const out = ["400 validation_failed (details)", "401 unauthorized", "403 forbidden", "429 rate_limited"];
  if (a.status !== "live" && a.status !== "unavailable") out.push("501 not_implemented");
  else if (a.needs.length > 0) out.push(`501 not_implemented (${a.needs.map((n) => n.part).join(", ")})`);
  out.push("503 unavailable (owner down)", "5xx (sanitized; quote X-Request-Id)");
  return out;
}

export interface DocsModel {
  baseUrl: string;
  version: string;
  tenant: string;
  keyId: string;
  rateLimit: RateLimitPolicy;
  maxBodyBytes: number;
  abilities: AbilityView[];
}

function mdCell(s: unknown): string {
  return String(s ?? "")
    .replaceAll("|", "\\|")
    .replaceAll("\n", " ");
}

/** The per-key docs as Markdown (what an agent gets from `GET /docs` with `Accept: text/markdown`). */
export function renderMarkdown(m: DocsModel): string {
  const out: string[] = [];
  const live = m.abilities.filter((a) => a.live).length;
  out.push(`# Gantry API: documentation for key ${m.keyId}`, "");
  out.push(
    `Version ${m.version}. Tenant \`${m.tenant}\`. This key may call ${m.abilities.length} abilities (${live} live). Base URL: ${m.baseUrl}.`,
    "",
  );
  out.push(
    'Every operation is an ability: `POST {base}/v1/abilities/{id}` with `{"input": {...}}` (optionally `"context": {tenantId?, runId?, verticalId?}`), or `POST {base}/abilities/execute` with `{"ability": id, "input": {...}}`. Send `Authorization: Bearer <API key>` and `Content-Type: application/json`. Success is `200 {ok: true, ability, result, duration}`; every failure is `{ok: false, error, code, ability?, reason?, details?, retryAfterMs?, requestId}`.',
    "",
    `Machine-readable: ${m.baseUrl}/openapi.json (OpenAPI 3.1) and ${m.baseUrl}/v1/abilities (this key's abilities with live status). Search them with the ability \`capability.discover\`.`,
    "",
  );

  out.push("## Limits", "", "| Limit | Value | Applies to |", "|---|---|---|");
  for (const r of limitRows(
    m.rateLimit,
    m.maxBodyBytes,
    true,
    m.abilities.map((a) => a.id),
  ))
    out.push(`| ${mdCell(r.limit)} | ${mdCell(r.value)} | ${mdCell(r.appliesTo)} |`);
  out.push("", "Every input's own defaults and bounds are in its schema below.", "");

  out.push(
    "## MCP",
    "",
    `Endpoint: ${m.baseUrl}/mcp (Streamable HTTP). Header: \`Authorization: Bearer <API key>\`. The tools are the abilities this key may call (name = ability id, input schema = the ability's); a tool error carries the same code and message as the HTTP API. Protocol revisions: 2026-07-28 (stateless) and 2025-11-25 and earlier (sessions).`,
    "",
  );
  for (const h of mcpHosts(`${m.baseUrl}/mcp`)) {
    out.push(`### ${h.name}`, "", `${h.where}${h.note ? `. ${h.note}` : ""}`, "", `\`\`\`${h.lang}`, h.text, "```", "");
  }

  out.push("## Errors", "", "| Status | code | When | What to do |", "|---|---|---|---|");
  for (const e of ERROR_ROWS)
    out.push(`| ${e.status} | ${mdCell(e.codes)} | ${mdCell(e.when)} | ${mdCell(e.action)} |`);
  out.push("", "Every response carries `X-Request-Id`, the id of its audit record.", "");

  out.push("## Abilities", "");
  const byArea = new Map<string, AbilityView[]>();
  for (const a of m.abilities) byArea.set(a.area, [...(byArea.get(a.area) ?? []), a]);
  for (const [area, list] of [...byArea].sort(([x], [y]) => x.localeCompare(y))) {
    out.push(`### ${area}`, "");
    for (const a of list) {
      out.push(`#### ${a.id}`, "", a.description, "", `Status: **${a.status}**. ${STATUS_TEXT[a.status]}`, "");
      if (a.needs.length) out.push(`Not on this deployment: ${needsText(a.needs)}`, "");
      const decision = decisions[a.id];
      if (decision) out.push(`Input notes: ${decision}`, "");
      const fields = inputFields(a);
      if (fields.length) {
        out.push("| Field | Type | Required | Description |", "|---|---|---|---|");
        for (const f of fields) {
          const extra = [
            f.values ? `One of: ${f.values.map((v) => JSON.stringify(v)).join(", ")}.` : "",
            f.default !== undefined ? `Default ${JSON.stringify(f.default)}.` : "",
            f.variant ? `(${f.variant})` : "",
          ]
            .filter(Boolean)
            .join(" ");
          out.push(
            `| ${mdCell(f.name)} | ${mdCell(f.type)} | ${f.required ? "yes" : "no"} | ${mdCell(`${f.description} ${extra}`.trim())} |`,
          );
        }
        out.push("");
      } else out.push("Input: `{}` (no fields).", "");
      out.push(
        "curl:",
        "",
        "```shell",
        curlSnippet(m.baseUrl, a.id, a.example),
        "```",
        "",
        "fetch:",
        "",
        "```js",
        fetchSnippet(m.baseUrl, a.id, a.example),
        "```",
        "",
      );
      out.push(`Errors: ${abilityErrors(a).join("; ")}.`, "");
      out.push(
        "<details><summary>Input JSON Schema</summary>",
        "",
        "```json",
        JSON.stringify(a.input, null, 2),
        "```",
        "",
        "</details>",
        "",
      );
    }
  }
  return out.join("\n");
}
