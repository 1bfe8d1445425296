/**
 * @module gateway/respond
 * The only place the gateway writes an ability response or an ErrorResponse to Express. The bodies
 * themselves come from pipeline/outcome.ts, so MCP tool results and HTTP answers cannot drift apart.
 */
import type { ServerResponse } from "node:http";
import { GantryError, type Logger } from "@gantry/kit";
import { errorBody, retryAfterHeader, type AbilityOutcome, type ResponseHeaders } from "./pipeline/outcome.ts";

export function setHeaders(res: ServerResponse, headers: ResponseHeaders): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/**
 * Writes what the pipeline decided: status, its headers and the envelope or ErrorResponse. On the
 * bare `node:http` response, so the ability route can answer without Express (routes/abilities.ts).
 */
export function sendOutcome(res: ServerResponse, out: AbilityOutcome): void {
  setHeaders(res, out.headers);
  writeJson(res, out.status, out.ok ? out.envelopeJson : JSON.stringify(out.body));
}

/** A failure no handler answered (a bug): logged with the request id, answered 500 if still possible. */
export function sendUnhandled(res: ServerResponse, log: Pick<Logger, "error">, requestId: string, err: unknown): void {
  log.error({ requestId, err: String(err) }, "unhandled error");
  if (res.headersSent) res.destroy();
  else sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error"));
}

/** An ErrorResponse from a route outside the ability pipeline (discovery, docs, MCP admission, 404s). */
export function sendError(res: ServerResponse, err: GantryError, ability?: string): void {
  const requestId = String(res.getHeader("x-request-id") ?? "");
  setHeaders(res, retryAfterHeader(err));
  writeJson(res, err.httpStatus, JSON.stringify(errorBody(err, requestId, ability)));
}

function writeJson(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
