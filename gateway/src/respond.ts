/**
 * @module gateway/respond
 * The only place the gateway writes an ability response or an ErrorResponse to Express. The bodies
 * themselves come from pipeline/outcome.ts, so MCP tool results and HTTP answers cannot drift apart.
 */
import type { Response } from "express";
import type { GantryError } from "@gantry/kit";
import {
  errorBody,
  resultEnvelopeJson,
  retryAfterHeader,
  type AbilityOutcome,
  type ResponseHeaders,
} from "./pipeline/outcome.ts";

export function setHeaders(res: Response, headers: ResponseHeaders): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

/** Writes what the pipeline decided: status, its headers and the envelope or ErrorResponse. */
export function sendOutcome(res: Response, out: AbilityOutcome): void {
  setHeaders(res, out.headers);
  res.status(out.status);
  res.type("application/json").send(out.ok ? out.envelopeJson : JSON.stringify(out.body));
}

/** An ErrorResponse from a route outside the ability pipeline (discovery, docs, MCP admission, 404s). */
export function sendError(res: Response, err: GantryError, ability?: string): void {
  const requestId = String(res.getHeader("x-request-id") ?? "");
  setHeaders(res, retryAfterHeader(err));
  res.status(err.httpStatus);
  res.type("application/json").send(JSON.stringify(errorBody(err, requestId, ability)));
}

/**
 * Writes a success envelope. The result arrives from the owning service already JSON-encoded, so
 * it is spliced in rather than parsed and re-serialised.
 */
export function sendResult(res: Response, ability: string, resultJson: string, durationMs: number): void {
  res.status(200);
  res.type("application/json").send(resultEnvelopeJson(ability, resultJson, durationMs));
}
