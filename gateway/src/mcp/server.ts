/**
 * @module gateway/mcp/server
 * The MCP server of `/mcp` (official SDK, low-level `Server`): tools are the abilities the bearer
 * key may call (name = ability id, `inputSchema` = the catalogue's JSON Schema, description = the
 * summary plus its live status). `tools/call` runs the HTTP pipeline ({@link runAbility}: scope,
 * rate limit, envelope, tenant, validation, permits, dispatch, audit, metrics) and answers with the
 * same AbilityResult envelope as structured content, or a tool error (`isError`) whose structured
 * content is the same ErrorResponse HTTP would send (same `code`, same message). An unknown tool is
 * a JSON-RPC `-32602` error, as the MCP spec asks.
 *
 * One factory serves every protocol era; the per-HTTP-request facts (the resolved key, the Express
 * request and response the pipeline writes headers to) reach handlers through `authInfo.extra`,
 * which the route sets on every request, so a long-lived 2025 session always acts with the key of
 * the request at hand.
 */
import type { Request, Response } from "express";
import { ProtocolError, Server, type AuthInfo, type CallToolResult, type ServerContext, type Tool } from "@modelcontextprotocol/server";
import { abilityById } from "@gantry/proto/catalogue";
import { runAbility, type AbilityOutcome } from "../pipeline/execute-ability.ts";
import { errorBody, resultEnvelopeJson } from "../respond.ts";
import { newRequestId } from "../pipeline/request-id.ts";
import { abilitiesFor, type AbilityView } from "../discovery/abilities.ts";
import { STATUS_TEXT } from "../discovery/live-status.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

/** `_meta` key of `tools/call` carrying the spec's CallContext (`tenantId`, `runId`, `verticalId`). */
export const CONTEXT_META_KEY = "gantry/context";

/** What a handler needs from the HTTP request it serves. */
export interface McpHttpContext {
  key: KeyRecord;
  req: Request;
  res: Response;
  /** The HTTP request's id for its first call, a fresh one for any further call (one audit record each). */
  nextRequestId: () => string;
}

export function authInfoFor(key: KeyRecord, req: Request, res: Response): AuthInfo {
  let used = false;
  const ctx: McpHttpContext = {
    key,
    req,
    res,
    nextRequestId: () => {
      if (used) return newRequestId();
      used = true;
      return res.locals.requestId as string;
    },
  };
  // The raw secret never leaves the route: the token field carries the key id.
  return { token: key.id, clientId: key.id, scopes: [...key.scopes], extra: { gantry: ctx } };
}

function httpContext(ctx: ServerContext): McpHttpContext {
  const g = ctx.http?.authInfo?.extra?.gantry as McpHttpContext | undefined;
  if (!g) throw new ProtocolError(-32603, "internal error: request context missing");
  return g;
}

/**
 * The pipeline writes rate-limit and deprecation headers on the HTTP response; the MCP responses
 * are produced only after the handler returns (JSON response mode), but a header write must never
 * throw if they were not, so it is skipped once headers are out.
 */
function headerSafe(res: Response): Response {
  return new Proxy(res, {
    get(target, prop) {
      if (prop === "setHeader") return (name: string, value: string | number | readonly string[]) => (target.headersSent ? target : target.setHeader(name, value));
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

const READ_ONLY_OPS = new Set(["get", "list", "search", "recall", "status", "inspect", "discover", "about", "balance", "toolkits", "tools", "connections", "read", "manifest_get", "render", "summarize", "load"]);
const DESTRUCTIVE_OPS = new Set(["revoke", "forget", "rotate", "close"]);

export function toTool(a: AbilityView): Tool {
  const op = a.id.slice(a.id.lastIndexOf(".") + 1);
  const note = a.status === "live" ? "" : ` [${STATUS_TEXT[a.status]}]`;
  return {
    name: a.id,
    title: a.id,
    description: `${a.description}${note}`,
    inputSchema: a.input as Tool["inputSchema"],
    annotations: {
      title: a.id,
      readOnlyHint: READ_ONLY_OPS.has(op),
      destructiveHint: DESTRUCTIVE_OPS.has(op),
      openWorldHint: ["web", "research", "message", "payment", "payout", "integration", "connection"].includes(a.area),
    },
    _meta: { "gantry/status": a.status, "gantry/area": a.area },
  };
}

/** The outcome of the pipeline as an MCP tool result: the HTTP body, as structured content and as text. */
export function toToolResult(out: AbilityOutcome): CallToolResult {
  if (out.ok) {
    const json = resultEnvelopeJson(out.ability, out.resultJson, out.durationMs);
    return { content: [{ type: "text", text: json }], structuredContent: JSON.parse(json), _meta: { "gantry/requestId": out.requestId } };
  }
  const body = errorBody(out.error, out.requestId, out.ability);
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
    _meta: { "gantry/requestId": out.requestId },
  };
}

const INSTRUCTIONS = [
  "Gantry abilities as tools: each tool is one ability this API key may call; its input schema is the ability's.",
  "Before concluding that something cannot be done, call capability.discover with a short description of the task: it searches every ability in this key's scope (and names matches outside it).",
  "A tool error carries the same ErrorResponse as the HTTP API (ok, error, code, details, retryAfterMs, requestId): fix the input on validation_failed, wait retryAfterMs on rate_limited or unavailable.",
  `Pass a CallContext (tenantId, runId, verticalId) in the tools/call _meta under "${CONTEXT_META_KEY}".`,
].join(" ");

/** A fresh server instance (one per 2025 session or per stateless request). */
export function createMcpServer(deps: GatewayDeps): Server {
  const server = new Server(
    { name: "gantry", title: "Gantry", version: deps.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler("tools/list", async (_request, ctx) => {
    const g = httpContext(ctx);
    const abilities = await abilitiesFor(g.key.scopes, deps);
    return { tools: abilities.map(toTool) };
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const g = httpContext(ctx);
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    const context = (request.params._meta as Record<string, unknown> | undefined)?.[CONTEXT_META_KEY];
    const body = context === undefined ? { input: args } : { input: args, context };
    const out = await runAbility(g.req, headerSafe(g.res), deps, { ability: name, body, key: g.key, requestId: g.nextRequestId() });
    if (!out.ok && out.error.code === "unknown_ability" && !abilityById.has(name)) {
      throw new ProtocolError(-32602, `Unknown tool: ${name}`, errorBody(out.error, out.requestId));
    }
    return toToolResult(out);
  });

  return server;
}
