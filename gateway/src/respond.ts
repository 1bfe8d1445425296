/**
 * @module gateway/respond
 * The only place the gateway writes an ability response or an ErrorResponse to Express. The bodies
 * themselves come from pipeline/outcome.ts, so MCP tool results and HTTP answers cannot drift apart.
 */
import type { ServerResponse } from "node:http";
import type { GantryError } from "@gantry/kit";
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
