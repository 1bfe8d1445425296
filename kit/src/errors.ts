/**
 * @module kit/errors
 * The one closed set of error codes, and the one table that maps each to an HTTP status and a gRPC
 * status. Services throw `GantryError`; the gRPC layer carries the code in a trailer; the gateway
 * turns it back into the spec's ErrorResponse. Nothing else decides a status code.
 */
import { status as GrpcStatus } from "@grpc/grpc-js";

export const ERROR_TABLE = {
  invalid_json: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  invalid_request: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  validation_failed: { http: 400, grpc: GrpcStatus.INVALID_ARGUMENT },
  unknown_ability: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  unauthorized: { http: 401, grpc: GrpcStatus.UNAUTHENTICATED },
  forbidden: { http: 403, grpc: GrpcStatus.PERMISSION_DENIED },
  not_found: { http: 404, grpc: GrpcStatus.NOT_FOUND },
  method_not_allowed: { http: 405, grpc: GrpcStatus.UNIMPLEMENTED },
  conflict: { http: 409, grpc: GrpcStatus.ABORTED },
  payload_too_large: { http: 413, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  unsupported_media_type: { http: 415, grpc: GrpcStatus.INVALID_ARGUMENT },
  rate_limited: { http: 429, grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  internal: { http: 500, grpc: GrpcStatus.INTERNAL },
  not_implemented: { http: 501, grpc: GrpcStatus.UNIMPLEMENTED },
  upstream_failed: { http: 502, grpc: GrpcStatus.UNAVAILABLE },
  unavailable: { http: 503, grpc: GrpcStatus.UNAVAILABLE },
  timeout: { http: 504, grpc: GrpcStatus.DEADLINE_EXCEEDED },
} as const;

export type ErrorCode = keyof typeof ERROR_TABLE;

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/** One JSON Schema (or field) problem, as listed in ErrorResponse.details. */
export interface ErrorDetail {
  /** JSON Pointer into the input, e.g. `/input/email`; `` for the whole input. */
  path: string;
  message: string;
  /** Machine-readable: the failing JSON Schema keyword, or a code the ability sets. */
  code?: unknown;
  [key: string]: unknown;
}

export interface GantryErrorInit {
  reason?: string;
  details?: ErrorDetail[];
  retryAfterMs?: number;
  /** Not sent to clients: the underlying cause, for the log. */
  cause?: unknown;
}

export class GantryError extends Error {
  readonly code: ErrorCode;
  readonly reason?: string;
  readonly details?: ErrorDetail[];
  readonly retryAfterMs?: number;

  constructor(code: ErrorCode, message: string, init: GantryErrorInit = {}) {
    // Client errors and 501s are answers, not faults: nobody reads their stack, and capturing one
    // per refused call was a visible share of the gateway's CPU under load.
    const limit = Error.stackTraceLimit;
    if (ERROR_TABLE[code].http < 500 || code === "not_implemented") Error.stackTraceLimit = 0;
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    Error.stackTraceLimit = limit;
    this.name = "GantryError";
    this.code = code;
    this.reason = init.reason;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
  }

  get httpStatus(): number {
    return ERROR_TABLE[this.code].http;
  }

  /** The wire form, shared by the gRPC trailer and the HTTP ErrorResponse. */
  toJSON(): WireError {
    const out: WireError = { code: this.code, message: this.message };
    if (this.reason !== undefined) out.reason = this.reason;
    if (this.details !== undefined) out.details = this.details;
    if (this.retryAfterMs !== undefined) out.retryAfterMs = this.retryAfterMs;
    return out;
  }
}

export interface WireError {
  code: ErrorCode;
  message: string;
  reason?: string;
  details?: ErrorDetail[];
  retryAfterMs?: number;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_TABLE, value);
}

/** Server-side failures never reveal their message: stack traces, SQL and host names stay in the log. */
export function isServerError(code: ErrorCode): boolean {
  return ERROR_TABLE[code].http >= 500;
}

export const SANITIZED_MESSAGES: Partial<Record<ErrorCode, string>> = {
  internal: "The ability failed. Quote the X-Request-Id when reporting it.",
  upstream_failed: "An upstream provider failed. Retry later; quote the X-Request-Id if it persists.",
  timeout: "The ability did not finish in time. Retry later.",
};

/** Maps a gRPC status with no Gantry trailer (transport failures) to a code. */
export function codeFromGrpcStatus(grpcCode: number): ErrorCode {
  switch (grpcCode) {
    case GrpcStatus.UNAVAILABLE:
      return "unavailable";
    case GrpcStatus.DEADLINE_EXCEEDED:
      return "timeout";
    case GrpcStatus.UNIMPLEMENTED:
      return "not_implemented";
    case GrpcStatus.INVALID_ARGUMENT:
      return "invalid_request";
    case GrpcStatus.NOT_FOUND:
      return "not_found";
    case GrpcStatus.PERMISSION_DENIED:
      return "forbidden";
    case GrpcStatus.UNAUTHENTICATED:
      return "unauthorized";
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.ABORTED:
    case GrpcStatus.FAILED_PRECONDITION:
      return "conflict";
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return "rate_limited";
    default:
      return "internal";
  }
}
