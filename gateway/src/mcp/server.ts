/**
 * @module gateway/mcp/server
 * The MCP server of `/mcp` (official SDK, low-level `Server`): tools are the abilities the bearer
 * key may call (name = ability id, `inputSchema` = the catalogue's JSON Schema, description = the
 * summary plus its live status, `outputSchema` = the ability's result schema). `tools/call` is one
 * more adapter of the ability pipeline ({@link runAbility}), so a tool call meets exactly the
 * policies an HTTP call does. Success answers with the envelope's `result` as `structuredContent`
 * (which therefore validates against the tool's `outputSchema`, as the MCP spec requires) and as
 * JSON text; a failure is a tool error (`isError`) whose text and `_meta["gantry/error"]` are the
 * ErrorResponse HTTP would send. An unknown tool is a JSON-RPC `-32602` error, as the MCP spec asks.
 *
 * One factory serves every protocol era. A 2025 session outlives the HTTP request that opened it,
 * so the per-request facts (the key, the request id, the base URL) reach handlers through
 * `authInfo.extra`, which the route sets on every request: a session always acts with the key of
 * the request at hand.
 */
import {
  ProtocolError,
  Server,
  type AuthInfo,
  type CallToolResult,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import { abilityById, type JsonSchema } from "@gantry/proto/catalogue";
import { runAbility } from "../pipeline/execute-ability.ts";
import type { AbilityOutcome, ResponseHeaders } from "../pipeline/outcome.ts";
import { newRequestId } from "../pipeline/request-id.ts";
import { abilitiesFor, needsText, type AbilityView } from "../discovery/abilities.ts";
import { STATUS_TEXT } from "../discovery/live-status.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";
import { isDestructive, isReadOnly } from "@gantry/proto/catalogue/effects.ts";

/** `_meta` key of `tools/call` carrying the spec's CallContext (`tenantId`, `runId`, `verticalId`). */
export const CONTEXT_META_KEY = "gantry/context";

/** What a handler needs from the HTTP request it serves. */
export interface McpHttpContext {
  key: KeyRecord;
  baseUrl: string;
  /** The HTTP request's id for its first call, a fresh one for any further call (one audit record each). */
  nextRequestId: () => string;
  /** Headers for the HTTP response (the key's RateLimit state); the route writes them once the handlers are done. */
  responseHeaders: ResponseHeaders;
}

export function mcpHttpContext(key: KeyRecord, requestId: string, baseUrl: string): McpHttpContext {
  let used = false;
  return {
    key,
    baseUrl,
    nextRequestId: () => {
      if (used) return newRequestId();
      used = true;
      return requestId;
    },
    responseHeaders: {},
  };
}

export function authInfoFor(ctx: McpHttpContext): AuthInfo {
  // The raw secret never leaves the route: the token field carries the key id.
  return { token: ctx.key.id, clientId: ctx.key.id, scopes: [...ctx.key.scopes], extra: { gantry: ctx } };
}

function httpContext(ctx: ServerContext): McpHttpContext {
  const g = ctx.http?.authInfo?.extra?.gantry as McpHttpContext | undefined;
  if (!g) throw new ProtocolError(-32603, "internal error: request context missing");
  return g;
}

/**
 * A call's headers that belong on the HTTP response. Not its `Retry-After` (the HTTP exchange
 * succeeded; the wait is the tool error's `retryAfterMs`). The call's own id is in its result's
 * `_meta`; the HTTP response keeps the HTTP request's `X-Request-Id`.
 */
function forHttpResponse(headers: ResponseHeaders): ResponseHeaders {
  // Idempotent-Replayed describes one tool call, not the HTTP exchange (MCP tool calls take their
  // idempotencyKey in the arguments; a replay's result is the first call's, as over HTTP).
  const { "Retry-After": _retry, "Idempotent-Replayed": _replayed, ...rest } = headers;
  return rest;
}

/** A tool's `outputSchema`, and whether `structuredContent` wraps the result as `{result}`. */
interface ToolOutput {
  schema: NonNullable<Tool["outputSchema"]>;
  wrapped: boolean;
}

const toolOutputs = new Map<string, ToolOutput>();

/**
 * What a tool's `structuredContent` holds, as its `outputSchema`. MCP requires an object schema
 * there: an ability whose output schema is one (every catalogue result is a closed object) returns
 * its result as is; any other (a non-object root, or an entry without an output schema yet) returns
 * `{result: <the result>}`, described by a schema wrapping the ability's.
 */
export function toolOutput(abilityId: string): ToolOutput {
  let out = toolOutputs.get(abilityId);
  if (!out) {
    const output = abilityById.get(abilityId)?.output;
    if (output?.type === "object") out = { schema: output as ToolOutput["schema"], wrapped: false };
    else {
      const result: JsonSchema = output ?? { description: `Return value of ${abilityId}.` };
      out = {
        schema: { type: "object", additionalProperties: false, required: ["result"], properties: { result } },
        wrapped: true,
      };
    }
    toolOutputs.set(abilityId, out);
  }
  return out;
}

/**
 * Whether tools/list offers the ability: not when it cannot run on this deployment (no handler, or
 * a setting it needs is missing), so an agent never plans on a tool that answers 501. An owner that
 * is down for a moment keeps its tools (503 says retry), so the list does not flap.
 */
export function offeredAsTool(a: AbilityView): boolean {
  return a.status === "live" || a.status === "unavailable";
}

export function toTool(a: AbilityView): Tool {
  const status = a.status === "live" ? "" : ` [${STATUS_TEXT[a.status]}]`;
  const note = `${status}${a.needs.length ? ` [Not on this deployment: ${needsText(a.needs)}]` : ""}`;
  return {
    name: a.id,
    title: a.id,
    description: `${a.description}${note}`,
    inputSchema: a.input as Tool["inputSchema"],
    outputSchema: toolOutput(a.id).schema,
    annotations: {
      title: a.id,
      readOnlyHint: isReadOnly(a.id),
      destructiveHint: isDestructive(a.id),
      openWorldHint: ["web", "research", "message", "payment", "payout", "integration", "connection"].includes(a.area),
    },
    _meta: { "gantry/status": a.status, "gantry/area": a.area },
  };
}

/**
 * The outcome of the pipeline as an MCP tool result. Success: the envelope's `result` as
 * `structuredContent` (shaped by {@link toolOutput}) and the same JSON as text; the envelope's
 * other fields go to `_meta` (`gantry/requestId`, `gantry/duration`; the ability is the tool).
 * Failure: `isError` with the ErrorResponse as JSON text and in `_meta["gantry/error"]`, and no
 * `structuredContent`: it would have to match the tool's `outputSchema`, and the 1.x SDK client
 * validates it even on errors, so an ErrorResponse there would turn the tool error into a
 * protocol error.
 */
export function toToolResult(out: AbilityOutcome): CallToolResult {
  if (out.ok) {
    const envelope = JSON.parse(out.envelopeJson) as { result: unknown; duration: number };
    const structured = (
      toolOutput(out.ability).wrapped ? { result: envelope.result } : envelope.result
    ) as CallToolResult["structuredContent"];
    return {
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured,
      _meta: { "gantry/requestId": out.requestId, "gantry/duration": envelope.duration },
    };
  }
  const body = out.body;
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(body) }],
    _meta: { "gantry/requestId": out.requestId, "gantry/error": body },
  };
}

const INSTRUCTIONS = [
  "Gantry abilities as tools: each tool is one ability this API key may call; its input schema is the ability's.",
  "Before concluding that something cannot be done, call capability.discover with a short description of the task: it searches every ability in this key's scope (and names matches outside it).",
  "A tool's result is the ability's result, described by the tool's output schema.",
  "A tool error carries the same ErrorResponse as the HTTP API (ok, error, code, details, retryAfterMs, requestId) as JSON text: fix the input on validation_failed, wait retryAfterMs on rate_limited or unavailable.",
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
    const abilities = await abilitiesFor(g.key.scopes, deps.liveStatus);
    return { tools: abilities.filter(offeredAsTool).map(toTool) };
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const g = httpContext(ctx);
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    const context = (request.params._meta as Record<string, unknown> | undefined)?.[CONTEXT_META_KEY];
    const body = context === undefined ? { input: args } : { input: args, context };
    const out = await runAbility(
      {
        requestId: g.nextRequestId(),
        started: performance.now(),
        credential: { key: g.key },
        ability: name,
        body: { value: body },
        baseUrl: g.baseUrl,
      },
      deps,
    );
    Object.assign(g.responseHeaders, forHttpResponse(out.headers));
    if (!out.ok && out.body.code === "unknown_ability" && !abilityById.has(name)) {
      throw new ProtocolError(-32602, `Unknown tool: ${name}`, out.body);
    }
    return toToolResult(out);
  });

  return server;
}
