/**
 * @module gateway/respond
 * The only place the gateway writes an ability response: the success envelope of spec §2.3 and the
 * ErrorResponse of §2.4, with server-side messages sanitized.
 */
import type { Response } from "express";
import { GantryError, SANITIZED_MESSAGES, isServerError, type ErrorCode } from "@gantry/kit";

export interface ErrorBody {
  ok: false;
  error: string;
  code: ErrorCode;
  ability?: string;
  reason?: string;
  details?: unknown[];
  retryAfterMs?: number;
  requestId: string;
}

export function errorBody(err: GantryError, requestId: string, ability?: string): ErrorBody {
  const server = isServerError(err.code);
  const body: ErrorBody = {
    ok: false,
    error: server && err.code !== "not_implemented" && err.code !== "unavailable" ? (SANITIZED_MESSAGES[err.code] ?? "The ability failed.") : err.message,
    code: err.code,
    requestId,
  };
  if (ability !== undefined) body.ability = ability;
  if (err.reason !== undefined && (!server || err.code === "not_implemented" || err.code === "unavailable")) body.reason = err.reason;
  if (err.details !== undefined && !server) body.details = err.details;
  if (err.retryAfterMs !== undefined) body.retryAfterMs = err.retryAfterMs;
  return body;
}

export function sendError(res: Response, err: GantryError, ability?: string): void {
  const requestId = String(res.getHeader("x-request-id") ?? "");
  if (err.retryAfterMs !== undefined) res.setHeader("Retry-After", String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))));
  res.status(err.httpStatus);
  res.type("application/json").send(JSON.stringify(errorBody(err, requestId, ability)));
}

/**
 * Writes the success envelope. The result arrives from the owning service already JSON-encoded, so
 * it is spliced in rather than parsed and re-serialised.
 */
export function sendResult(res: Response, ability: string, resultJson: string, durationMs: number): void {
  res.status(200);
  res.type("application/json").send(resultEnvelopeJson(ability, resultJson, durationMs));
}

/** The success envelope as JSON text (HTTP body; MCP structured content is the same object). */
export function resultEnvelopeJson(ability: string, resultJson: string, durationMs: number): string {
  return `{"ok":true,"ability":${JSON.stringify(ability)},"result":${resultJson},"duration":${Math.round(durationMs * 1000) / 1000}}`;
}
