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

/**
 * The spec's 404 is "no ability has the requested id". A missing record (and an unknown gateway
 * route) answers 404 too, as a mature API does, so every 404 says which in `details[].code`: these
 * are the codes that tell them apart, and each 404 code's own is added when its details carry none.
 */
export const NOT_FOUND_DETAILS = {
  unknown_ability: "ability_not_found",
  not_found: "record_not_found",
} as const satisfies Partial<Record<ErrorCode, string>>;

const NOT_FOUND_DETAIL_CODES: ReadonlySet<unknown> = new Set([
  "ability_not_found",
  "record_not_found",
  "route_not_found",
]);

/** `details` with the detail that says what was not found, for a 404 code whose details lack one. */
function withNotFoundDetail(code: ErrorCode, message: string, details: ErrorDetail[] | undefined) {
  const own = (NOT_FOUND_DETAILS as Partial<Record<ErrorCode, string>>)[code];
  if (!own || details?.some((d) => NOT_FOUND_DETAIL_CODES.has(d.code))) return details;
  return [...(details ?? []), { path: "", message, code: own }];
}

export const ERROR_CODES = Object.keys(ERROR_TABLE) as ErrorCode[];

/**
 * The closed vocabulary of `ErrorResponse.details[].code`, each with what it means. A detail names
 * one problem at one `path`; its `code` is either the JSON Schema keyword that failed (input
 * validation with Ajv, and the gateway's own envelope checks, which use the same words) or a code a
 * service sets for a rule a schema cannot state. OpenAPI publishes these keys as the enum of
 * `ErrorDetail.code`; gateway/test/openapi.test.ts checks that every code the sources emit and every
 * keyword the catalogue's input schemas can fail with is listed here. Add a code here before
 * emitting it.
 */
export const DETAIL_CODES = {
  // JSON Schema keywords (Ajv 2020 `keyword` of the failing rule; the envelope checks use the same words)
  required: "A required field is missing.",
  additionalProperties: "A field the schema does not define; remove it or check its spelling.",
  type: "The value has the wrong JSON type.",
  enum: "The value is not one of the allowed values (listed in the message and `params.allowedValues`).",
  const: "The value is not the one allowed value.",
  minLength: "The string is shorter than allowed.",
  maxLength: "The string is longer than allowed.",
  pattern: "The string does not match the required pattern.",
  format: "The string is not in the required format (email, uri, date, date-time).",
  minimum: "The number is below the minimum.",
  maximum: "The number is above the maximum.",
  exclusiveMinimum: "The number must be greater than the bound.",
  minItems: "The list has fewer items than allowed.",
  maxItems: "The list has more items than allowed.",
  uniqueItems: "The list holds duplicates.",
  minProperties: "The object has fewer fields than allowed (e.g. an update that changes nothing).",
  maxProperties: "The object has more fields than allowed (e.g. too many metadata keys).",
  propertyNames: "A field name (e.g. a metadata key) is not allowed; see the detail naming the name's own rule.",
  dependentRequired: "A field is present without the field it requires.",
  anyOf: "The value matches none of the allowed shapes.",
  oneOf: "The value does not match exactly one of the allowed shapes.",
  if: "A conditional rule failed (the value's other fields require this one to take a certain shape).",
  // Gateway
  nul_character: "A string or field name contains U+0000, which cannot be stored.",
  nested_too_deep: "Objects or lists nest deeper than the gateway accepts (`params.limit` levels below `input`).",
  field_name_too_long: "A field name is longer than the gateway accepts (`params.limit` characters).",
  idempotency_not_supported:
    "The Idempotency-Key header was sent for an ability that takes no idempotencyKey (`/headers/idempotency-key`).",
  idempotency_key_mismatch: "The Idempotency-Key header and input.idempotencyKey differ; send one, or the same value.",
  ability_not_found:
    "No ability has this id (the spec's 404; on /abilities/execute a 400); `suggestion` names the closest id the key may call, if any.",
  route_not_found: "404: no gateway route has this method and path (see /openapi.json).",
  // Kit (every service)
  invalid_cursor: "The cursor is not one this list returned; pass `nextCursor` unchanged or omit it.",
  idempotency_mismatch: "The idempotencyKey was already used with a different value of this field.",
  invalid_character: "The input holds characters the database cannot store.",
  record_not_found:
    "404: the ability exists, but the id (or name) at `path` names no record of this tenant; every other 404 is ability_not_found or route_not_found.",
  // keys service
  exceeds_caller: "The requested grant is wider than the calling key's own (scopes, tenant, limits, expiry).",
  unknown_scope: "A scope matches no ability (`scope`).",
  confirm_self_required: "Revoking the calling key itself needs `confirmSelf: true`.",
  already_rotated: "The key was already rotated; rotate its successor (`successorId`).",
  key_revoked: "The key is revoked.",
  key_expired: "The key has expired.",
  legacy_key: "A legacy key cannot be rotated or revoked through the API.",
  // content service
  product_not_allowed: "guide.publish: the product is not on the calling key's product allow-list (fail-closed).",
  model_not_configured:
    "document.summarize: `method: model` needs a model endpoint, and this deployment configures none.",
  // connections service
  not_applicable: "The field does not apply to this case (e.g. `credentials` for an OAuth toolkit); omit it.",
  provider_refused:
    "The external provider refused the value (API-key credentials, or the consent behind `sessionUri`).",
  consent_session:
    "`state` names no usable consent session of the connection (unknown, expired, already used, or started by another key).",
  redirect_mismatch: "`sessionUri` is not this consent's redirect (another redirect URI, or another state).",
  toolkit_mismatch: "The tool belongs to another toolkit than the connection's account.",
  not_owner: "Only the connection's owner (the key that gave consent) may do this.",
  not_shared: "No active share grants this key the tool on the connection (none, revoked, expired, or another tool).",
  connection_status:
    "The connection's status does not allow this (pending, needs_reauth or revoked; the message says what to do).",
  invalid_value: "The value is well-formed but not acceptable here (the message says why, e.g. a time in the past).",
  // memory service
  filter: "The memory filter is malformed (unknown operator, non-scalar value, …).",
  // workspace service
  blank: "A required text is only whitespace.",
  invalid_phone: "Not a valid phone number.",
  too_many_keys: "The change would leave the record with more metadata keys than allowed.",
  unknown_currency: "Not an ISO 4217 currency code this service knows.",
  currency_precision: "The amount has more decimal places than the currency allows.",
  payload_too_large: "The event payload exceeds its serialized size limit (`limit`, `size`).",
  illegal_transition: "The lead's or task's current status cannot move to the one asked for (`current`, `allowed`).",
  doc_closed: "The doc is closed; it cannot be changed.",
  version_conflict: "`baseVersion` is stale: the doc changed since (`currentVersion`).",
  doc_too_large: "The change would make the doc longer than allowed.",
  anchor_not_found: "The anchor is not a passage of the doc's current content.",
  // workspace: vertical manifest lint (details of a 409 for a manifest that fails lint, paths under /manifest)
  too_large: "Manifest: the file exceeds its size limit.",
  invalid_json: "Manifest: the file is not valid JSON.",
  id_mismatch: "Manifest: `id` differs from the file name.",
  unknown_field: "Manifest: a field that is not allowed here.",
  min_items: "Manifest: a list has fewer items than required.",
  duplicate_id: "Manifest: two entries share an id.",
  range: "Manifest: a range whose bounds are not 0 < min ≤ max.",
  scope: "Manifest: not a well-formed scope.",
  scope_empty: "Manifest: a scope that grants no catalogue ability.",
  unknown_noun: "Manifest: not a declared noun.",
  unknown_column: "Manifest: a noun field mapped to a column its record does not have.",
  noun_mismatch: "Manifest: the ability does not serve the noun's record type.",
  unknown_ability: "Manifest: not a catalogue ability.",
  not_a_read: "Manifest: a data source that is not a read ability.",
  unknown_input: "Manifest: an input field the ability does not take.",
  action_kind: "Manifest: an action needs exactly one of `ability` or `host`.",
  host_path: "Manifest: a host endpoint path that is not a relative path.",
  unguarded: "Manifest: a host endpoint without scopes or confirmation.",
  unknown_action: "Manifest: not a declared action id.",
  unknown_capture: "Manifest: not a declared capture id.",
  unknown_node_type: "Manifest: not a known screen node type.",
  too_deep: "Manifest: screens nested too deeply.",
  field_ref: 'Manifest: not a field reference ({"field": "<noun>.<field>"}).',
  unknown_field_ref: "Manifest: a field reference to an undeclared noun field.",
  unbound_field_ref: "Manifest: a field reference outside a node bound to a noun.",
  wrong_noun: "Manifest: a field reference to another noun than the node's.",
  secret: "Manifest: looks like a secret; manifests must not carry any.",
  tenant_data: "Manifest: looks like tenant data (an email address or phone number).",
  // payments service
  insufficient_balance: "The payouts exceed the available balance of their currency (`available`); nothing was sent.",
  account_unresolved: "The bank could not resolve the account number (with the bank code given).",
  recipient_currency: "The payout's currency is not the one the recipient receives.",
  recipient_provider: "A batch item's recipient belongs to another provider or mode than the batch's first item.",
  duplicate_reference: "The item's `reference` repeats an earlier item's in the same batch.",
  // trust service and the gateway's permit step (calls carrying context.runId)
  run_not_found: "`context.runId` names no run of this tenant.",
  run_expired: "The run has expired; its unused permits can no longer be used (create a new run with trust.preflight).",
  run_other_key: "The run belongs to another API key; call with the key that created it.",
  run_required: "This tenant requires calls to this ability to be made under a trust run (`context.runId`).",
  permit_used: "The permit for this ability and input was already used: a permit runs one call (a replay is refused).",
  permit_input_mismatch:
    "The run has a permit for this ability, but for another input (the SHA-256 of the canonical JSON differs; the message names this input's).",
  permit_missing: "The run has no permit for this ability.",
  receipt_not_found: "A cited receipt is not a receipt of this tenant made under a run.",
  receipt_required: "An `observed` claim must cite at least one receipt.",
  action_invalid: "A permitted action's input does not match its ability's input schema (`ability`).",
  // web service
  url_refused: "The URL is refused by the SSRF guard (`rule`: scheme, credentials, port, or a non-public address).",
  host_not_found: "The URL's host does not resolve (no such DNS name).",
  invalid_selector: "Not a valid CSS selector.",
  not_registered: "The page is not on the registry of official pages; only registered pages can be captured.",
} as const satisfies Record<string, string>;

export type DetailCode = keyof typeof DETAIL_CODES;

export const DETAIL_CODE_LIST = Object.keys(DETAIL_CODES) as DetailCode[];

export function isDetailCode(value: unknown): value is DetailCode {
  return typeof value === "string" && Object.hasOwn(DETAIL_CODES, value);
}

/** One JSON Schema (or field) problem, as listed in ErrorResponse.details. */
export interface ErrorDetail {
  /** JSON Pointer into the input, e.g. `/input/email`; `` for the whole input. */
  path: string;
  message: string;
  /** Machine-readable: the failing JSON Schema keyword, or a code the ability sets (one of {@link DETAIL_CODES}). */
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
    this.details = withNotFoundDetail(code, message, init.details);
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

/** 404 for a method and path no gateway route serves (not an ability, not a record): `route_not_found`. */
export function routeNotFound(message: string, reason?: string): GantryError {
  return new GantryError("not_found", message, {
    reason,
    details: [{ path: "", message, code: "route_not_found" }],
  });
}

/**
 * 404 for a record that does not exist *in the caller's tenant* (another tenant's looks the same):
 * detail `record_not_found` at `path` (default `/input/id`). `what` names the kind of record
 * ("contact", "payout batch"); `message` replaces the default wording (of the error and its detail)
 * when it says more, e.g. for a record that is not a tenant's (a toolkit of the registry).
 */
export function notFound(
  what: string,
  id: string,
  init: { path?: string; message?: string; reason?: string } = {},
): GantryError {
  const path = init.path ?? "/input/id";
  const message = init.message ?? `No ${what} with id ${id} in this tenant.`;
  const detail = init.message ?? `${path} does not name a ${what} of this tenant`;
  return new GantryError("not_found", message, {
    reason: init.reason,
    details: [{ path, message: detail, code: "record_not_found" }],
  });
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
