/**
 * @module client/errors
 * What a failed call throws. `GantryApiError`: the API answered with an error (its `code` is one of
 * the closed set of kit/src/errors.ts). `GantryConnectionError`: no answer arrived (network failure
 * or the client's timeout). Both extend `GantryClientError`. A call aborted through the caller's
 * `signal` rejects with the signal's reason (an `AbortError` DOMException by default), as `fetch` does.
 */
import type { DetailCode } from "./generated/abilities.ts";
import { ERROR_STATUS } from "./generated/runtime.ts";

/** Every error code the API answers with (`code` of the ErrorResponse). */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every error code, in the order of the API's error table. */
export const ERROR_CODES: readonly ErrorCode[] = Object.keys(ERROR_STATUS) as ErrorCode[];

/** One problem listed in `details` (validation errors: `path` like `/input/email`). */
export interface ErrorDetail {
  /** JSON Pointer into the request, e.g. `/input/email`. */
  path: string;
  message: string;
  /** Machine-readable: the failing JSON Schema keyword, or a code the ability sets (closed set: `DetailCode`). */
  code?: DetailCode;
  [key: string]: unknown;
}

/** The error body the API sends (`ok: false`). */
export interface ErrorResponse {
  ok: false;
  error: string;
  code: ErrorCode;
  ability?: string;
  reason?: string;
  details?: ErrorDetail[];
  retryAfterMs?: number;
  requestId: string;
}

/** Base of everything the client throws for a failed call (besides an abort by the caller). */
export class GantryClientError extends Error {
  /** The ability called. */
  readonly ability: string;
  /** Attempts made, retries included. */
  attempts = 1;

  constructor(message: string, ability: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GantryClientError";
    this.ability = ability;
  }
}

export interface GantryApiErrorInit<C extends ErrorCode = ErrorCode> {
  code: C;
  status: number;
  message: string;
  ability: string;
  requestId: string;
  reason?: string;
  details?: ErrorDetail[];
  retryAfterMs?: number;
  body?: unknown;
}

/**
 * The API answered with an error. Tell them apart by `code` (closed set, see `ErrorCode`):
 * `if (err instanceof GantryApiError && err.code === "rate_limited") …`, or `isGantryApiError(err, "not_found")`.
 */
export class GantryApiError<C extends ErrorCode = ErrorCode> extends GantryClientError {
  /** Machine-readable error code. */
  readonly code: C;
  /** HTTP status of the answer. */
  readonly status: number;
  /** Why, when the API says more than the message (e.g. the collections a key may use). */
  readonly reason?: string;
  /** Each problem (validation errors: one per failing field, with its `path`). */
  readonly details?: ErrorDetail[];
  /** How long to wait before trying again (429 and 503), from the body or `Retry-After`. */
  readonly retryAfterMs?: number;
  /** The request id (`X-Request-Id`): the audit record's id; quote it when reporting a problem. */
  readonly requestId: string;
  /** The parsed response body, as received. */
  readonly body: unknown;

  constructor(init: GantryApiErrorInit<C>) {
    super(init.message, init.ability);
    this.name = "GantryApiError";
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.reason = init.reason;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }

  /** Whether trying again later can succeed: 429 and 503 (what the client retries on its own). */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
}

/** No answer arrived: the network failed, or the attempt exceeded `timeoutMs`. The cause is in `cause`. */
export class GantryConnectionError extends GantryClientError {
  /** True when the client gave up after `timeoutMs`; false for a network failure. */
  readonly timedOut: boolean;

  constructor(message: string, ability: string, timedOut: boolean, cause?: unknown) {
    super(message, ability, { cause });
    this.name = "GantryConnectionError";
    this.timedOut = timedOut;
  }
}

/** Narrows `err` to a `GantryApiError`, optionally of the given code(s). */
export function isGantryApiError<C extends ErrorCode = ErrorCode>(
  err: unknown,
  ...codes: C[]
): err is GantryApiError<C> {
  return err instanceof GantryApiError && (codes.length === 0 || (codes as ErrorCode[]).includes(err.code));
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_STATUS, value);
}

const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
  500: "internal",
  501: "not_implemented",
  502: "upstream_failed",
  503: "unavailable",
  504: "timeout",
};

/** The code for an answer without a (recognised) Gantry error body, by HTTP status (a proxy's 502, say). */
export function codeForStatus(status: number): ErrorCode {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? "internal" : "invalid_request");
}
