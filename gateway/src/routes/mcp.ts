/**
 * @module gateway/routes/mcp
 * `/mcp`: MCP over Streamable HTTP, served with the official TypeScript SDK (v2 line,
 * `@modelcontextprotocol/server`), for every protocol revision current clients speak:
 *
 * - **2026-07-28** (stateless: `server/discover`, per-request `_meta` envelope, no session): routed
 *   to the SDK's `createMcpHandler` (modern leg, JSON responses). Works behind any load balancer.
 * - **2025-11-25 and earlier, with a session** (what the SDK 1.x client and most hosts speak today):
 *   `initialize` creates a session (`Mcp-Session-Id`, SDK `WebStandardStreamableHTTPServerTransport`);
 *   later requests carry it. Sessions live in this gateway's memory (idle 30 min, at most 10 000),
 *   are bound to the key that opened them (another key gets 404, as for an unknown session), and
 *   with several gateway replicas need session affinity on the `Mcp-Session-Id` header.
 * - **2025-era requests without a session** (clients that skip the session): served by a fresh
 *   server instance per request, like the SDK's stateless fallback.
 *
 * Every request is authenticated here first (`Authorization: Bearer <key>`, 401 with
 * `WWW-Authenticate` otherwise) and bounded by MAX_BODY_BYTES; a browser `Origin` other than this
 * gateway's own is refused (403, DNS-rebinding protection). Responses are JSON, never SSE: nothing
 * is pushed to clients, so `GET /mcp` (the standalone SSE stream) answers 405.
 */
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Request, Response } from "express";
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type AuthInfo,
  type Server,
} from "@modelcontextprotocol/server";
import { GantryError } from "@gantry/kit";
import { authenticate } from "../pipeline/authenticate.ts";
import { readJsonBody } from "../pipeline/body.ts";
import type { ResponseHeaders } from "../pipeline/outcome.ts";
import { sendError, setHeaders } from "../respond.ts";
import { authInfoFor, createMcpServer, mcpHttpContext, type McpHttpContext } from "../mcp/server.ts";
import { baseUrlOf } from "./base-url.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

const SESSION_IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 10_000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  keyId: string;
  lastSeen: number;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
]);

function webRequest(req: Request, body: string | undefined, signal: AbortSignal): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const url = `${req.protocol}://${req.get("host") ?? "localhost"}${req.originalUrl}`;
  return new Request(url, { method: req.method, headers, body, signal });
}

async function sendWeb(res: Response, web: globalThis.Response): Promise<void> {
  res.status(web.status);
  web.headers.forEach((value, name) => {
    if (name !== "content-length") res.setHeader(name, value);
  });
  if (!web.body) {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(web.body as import("node:stream/web").ReadableStream), res).catch(() => {});
}

function jsonRpcError(res: Response, httpStatus: number, code: number, message: string): void {
  res
    .status(httpStatus)
    .type("application/json")
    .send(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }));
}

function notAllowed(res: Response, allow: string, message: string): void {
  res.setHeader("Allow", allow);
  jsonRpcError(res, 405, -32000, message);
}

export function mcpRoutes(deps: GatewayDeps) {
  const sessions = new Map<string, Session>();
  const modern = createMcpHandler(() => createMcpServer(deps), {
    legacy: "reject",
    responseMode: "json",
    maxRequestBodySize: deps.config.MAX_BODY_BYTES,
    onerror: (err) => deps.log.debug({ err: err.message }, "mcp request rejected"),
  });

  const closeSession = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    void s.server.close().catch(() => {});
  };
  const sweep = setInterval(() => {
    const cutoff = deps.now() - SESSION_IDLE_MS;
    for (const [id, s] of sessions) if (s.lastSeen < cutoff) closeSession(id);
  }, 60_000);
  sweep.unref();

  /** Same-origin browsers only: a bearer key is required anyway, this stops DNS-rebinding pages. */
  const checkOrigin = (req: Request) => {
    const origin = req.get("origin");
    if (!origin) return;
    const own = new Set([`${req.protocol}://${req.get("host")}`]);
    if (deps.config.PUBLIC_URL) own.add(new URL(deps.config.PUBLIC_URL).origin);
    if (!own.has(origin))
      throw new GantryError("forbidden", `Origin ${origin} may not use this MCP endpoint.`, {
        reason: "Browsers may call /mcp only from this gateway's own origin.",
      });
  };

  const httpContext = (req: Request, res: Response, key: KeyRecord): McpHttpContext =>
    mcpHttpContext(key, res.locals.requestId as string, baseUrlOf(req, deps.config));

  /** Authenticates; answers 401/403 itself (with the MCP auth challenge) and returns null then. */
  const admit = async (req: Request, res: Response): Promise<KeyRecord | null> => {
    const headers: ResponseHeaders = {};
    try {
      checkOrigin(req);
      const key = await authenticate(req.headers.authorization, deps.keys, deps.now(), headers, {
        address: deps.clientAddress(req),
        failures: deps.authFailures,
      });
      setHeaders(res, headers);
      return key;
    } catch (err) {
      const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
      if (gerr.code === "unauthorized")
        res.setHeader("WWW-Authenticate", 'Bearer realm="Gantry", error="invalid_token"');
      sendError(res, gerr);
      return null;
    }
  };

  const serveSession = async (
    webReq: globalThis.Request,
    sid: string,
    key: KeyRecord,
    authInfo: AuthInfo,
    parsedBody?: unknown,
  ): Promise<globalThis.Response | null> => {
    const s = sessions.get(sid);
    if (!s || s.keyId !== key.id) return null;
    s.lastSeen = deps.now();
    return s.transport.handleRequest(webReq, { authInfo, parsedBody });
  };

  const openSession = async (
    webReq: globalThis.Request,
    key: KeyRecord,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<globalThis.Response> => {
    if (sessions.size >= MAX_SESSIONS) {
      // Drop the least recently used session; its client re-initializes on the 404.
      let oldest: [string, Session] | undefined;
      for (const e of sessions) if (!oldest || e[1].lastSeen < oldest[1].lastSeen) oldest = e;
      if (oldest) closeSession(oldest[0]);
    }
    const server = createMcpServer(deps);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => `mcp_${randomUUID().replaceAll("-", "")}`,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, keyId: key.id, lastSeen: deps.now() });
      },
      onsessionclosed: (id) => closeSession(id),
    });
    await server.connect(transport);
    const response = await transport.handleRequest(webReq, { authInfo, parsedBody });
    if (!transport.sessionId || !sessions.has(transport.sessionId)) void server.close().catch(() => {});
    return response;
  };

  const serveStateless = async (
    webReq: globalThis.Request,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<globalThis.Response> => {
    const server = createMcpServer(deps);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(webReq, { authInfo, parsedBody });
    } finally {
      void server.close().catch(() => {});
    }
  };

  const post = async (req: Request, res: Response) => {
    const key = await admit(req, res);
    if (!key) return;
    let raw: string;
    let parsed: unknown;
    try {
      ({ raw, value: parsed } = await readJsonBody(req, deps.config.MAX_BODY_BYTES));
    } catch (err) {
      if (err instanceof GantryError && (err.code === "invalid_json" || err.code === "invalid_request"))
        return jsonRpcError(res, 400, -32700, `Parse error: ${err.message}`);
      return sendError(
        res,
        err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err }),
      );
    }
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const ctx = httpContext(req, res, key);
    const authInfo = authInfoFor(ctx);
    const webReq = webRequest(req, raw, abort.signal);
    try {
      let web: globalThis.Response | null;
      if (!(await isLegacyRequest(webReq, parsed, { maxRequestBodySize: deps.config.MAX_BODY_BYTES }))) {
        web = await modern.fetch(webReq, { authInfo, parsedBody: parsed });
      } else {
        const sid = req.get("mcp-session-id");
        if (sid) web = await serveSession(webReq, sid, key, authInfo, parsed);
        else if (isInitializeRequest(parsed)) web = await openSession(webReq, key, authInfo, parsed);
        else web = await serveStateless(webReq, authInfo, parsed);
      }
      if (!web)
        return jsonRpcError(
          res,
          404,
          -32001,
          "Session not found: it expired or was ended; send initialize to start a new one.",
        );
      setHeaders(res, ctx.responseHeaders);
      await sendWeb(res, web);
    } catch (err) {
      deps.log.error(
        { requestId: res.locals.requestId, err: err instanceof Error ? err.message : String(err) },
        "mcp request failed",
      );
      if (!res.headersSent) jsonRpcError(res, 500, -32603, "Internal error. Quote the X-Request-Id when reporting it.");
    }
  };

  const del = async (req: Request, res: Response) => {
    const key = await admit(req, res);
    if (!key) return;
    const sid = req.get("mcp-session-id");
    if (!sid)
      return notAllowed(
        res,
        "POST, DELETE",
        "DELETE ends a 2025-11-25 session and needs its Mcp-Session-Id header; the 2026-07-28 protocol has no sessions.",
      );
    const abort = new AbortController();
    const web = await serveSession(
      webRequest(req, undefined, abort.signal),
      sid,
      key,
      authInfoFor(httpContext(req, res, key)),
    );
    if (!web) return jsonRpcError(res, 404, -32001, "Session not found.");
    closeSession(sid);
    await sendWeb(res, web);
  };

  const get = async (req: Request, res: Response) => {
    const key = await admit(req, res);
    if (!key) return;
    notAllowed(
      res,
      "POST, DELETE",
      "This server pushes no messages, so it offers no SSE stream: send requests with POST.",
    );
  };

  return { post, get, delete: del, sessions };
}
