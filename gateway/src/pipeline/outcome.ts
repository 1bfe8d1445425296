/**
 * @module gateway/pipeline/outcome
 * What one ability call comes to, independent of the transport that carries it: the status, the
 * body (success envelope of spec §2.3 or ErrorResponse of §2.4) and the response headers its steps
 * produced. The pipeline returns it; HTTP writes it as the response, MCP as a tool result. Keeping
 * the bodies here, not in the transports, is what makes both say exactly the same.
 */
import { SANITIZED_MESSAGES, isServerError, type ErrorCode, type GantryError } from "@gantry/kit";

/** Response headers by name, as the steps set them (last write wins, like `setHeader`). */
export type ResponseHeaders = Record<string, string>;

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

export type AbilityOutcome =
  | {
      ok: true;
      status: 200;
      ability: string;
      requestId: string;
      /** The success envelope as JSON text: the service's result is spliced in, never re-serialised. */
      envelopeJson: string;
      headers: ResponseHeaders;
    }
  | {
      ok: false;
      status: number;
      ability?: string;
      requestId: string;
      body: ErrorBody;
      headers: ResponseHeaders;
    };

/** The ErrorResponse; server-side messages (and their reasons and details) are sanitized. */
export function errorBody(err: GantryError, requestId: string, ability?: string): ErrorBody {
  const server = isServerError(err.code);
  const body: ErrorBody = {
    ok: false,
    error:
      server && err.code !== "not_implemented" && err.code !== "unavailable"
        ? (SANITIZED_MESSAGES[err.code] ?? "The ability failed.")
        : err.message,
    code: err.code,
    requestId,
  };
  if (ability !== undefined) body.ability = ability;
  if (err.reason !== undefined && (!server || err.code === "not_implemented" || err.code === "unavailable"))
    body.reason = err.reason;
  if (err.details !== undefined && !server) body.details = err.details;
  if (err.retryAfterMs !== undefined) body.retryAfterMs = err.retryAfterMs;
  return body;
}

/** `Retry-After` in whole seconds (at least 1) for an error that names a wait; none otherwise. */
export function retryAfterHeader(err: GantryError): ResponseHeaders {
  return err.retryAfterMs === undefined
    ? {}
    : { "Retry-After": String(Math.max(1, Math.ceil(err.retryAfterMs / 1000))) };
}

/** The success envelope as JSON text (HTTP body; MCP structured content is the same object). */
export function resultEnvelopeJson(ability: string, resultJson: string, durationMs: number): string {
  return `{"ok":true,"ability":${JSON.stringify(ability)},"result":${resultJson},"duration":${Math.round(durationMs * 1000) / 1000}}`;
}
