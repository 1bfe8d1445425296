/**
 * @module @gantry/client
 * A typed client for the Gantry ability API, for Node ≥ 20 and browsers (only `fetch`).
 *
 * @example
 * import { createClient, GantryApiError } from "@gantry/client";
 * const gantry = createClient({ baseUrl: "http://localhost:8080", apiKey: process.env.GANTRY_API_KEY! });
 * const contact = await gantry.contact.create({ name: "Ada Obi" }); // an idempotency key is added for you
 * try {
 *   await gantry.contact.get({ id: "ctc_missing" });
 * } catch (err) {
 *   if (err instanceof GantryApiError && err.code === "not_found") console.log(err.requestId);
 * }
 */
export { createClient, DEFAULTS, isCreateLike, isReadOnly, newIdempotencyKey, parseRetryAfter } from "./client.ts";
export {
  ERROR_CODES,
  GantryApiError,
  GantryClientError,
  GantryConnectionError,
  codeForStatus,
  isErrorCode,
  isGantryApiError,
} from "./errors.ts";
export type { ErrorCode, ErrorDetail, ErrorResponse, GantryApiErrorInit } from "./errors.ts";
export type {
  AbilityId,
  AbilityInput,
  AbilityMethod,
  AbilityOutput,
  Area,
  CallArgs,
  CallContext,
  CallOptions,
  CallResult,
  ClientCore,
  ClientOptions,
  FetchInit,
  FetchLike,
  FetchResponse,
  GantryClient,
  Namespace,
  RetryEvent,
} from "./types.ts";
export type * from "./generated/abilities.ts";
export { AREAS, CREATE_LIKE, READ_ONLY } from "./generated/runtime.ts";
