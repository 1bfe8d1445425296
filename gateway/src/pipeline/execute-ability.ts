/**
 * @module gateway/pipeline/execute-ability
 * The policy pipeline of one ability call, in order: authenticate → read body → resolve ability →
 * scope → rate limit → envelope → tenant → refuse NUL characters → validate → trust-run permit →
 * dispatch → outcome → receipt (calls under a run) → audit + metrics.
 *
 * It knows nothing of Express or MCP: it takes a plain description of the call and returns its
 * outcome (status, body, response headers), so `POST /v1/abilities/{id}`, `POST /abilities/execute`
 * (routes/abilities.ts) and MCP `tools/call` (mcp/server.ts) are thin adapters that cannot apply
 * different policies. The two HTTP paths differ only in where the ability id comes from and in the
 * status of an unknown id (404 vs 400, spec §4.2, §7).
 */
import { hash } from "node:crypto";
import { abilityById, keyMayCall } from "@gantry/proto/catalogue";
import {
  GantryError,
  inServerSpan,
  spanFailed,
  telemetryOn,
  validateInput,
  type CallContext,
  type Span,
} from "@gantry/kit";
import { authenticate } from "./authenticate.ts";
import { effectiveTenant, parseEnvelope } from "./envelope.ts";
import { enforceRateLimit } from "./rate-limit.ts";
import { refuseBadShape } from "./input-shape.ts";
import { notImplementedReason, unknownAbilityError } from "./unknown-ability.ts";
import { applyIdempotencyHeader } from "./idempotency-header.ts";
import { callDeadlineMs } from "./deadline-header.ts";
import { checkRunPermit, type ConsumedPermit, recordRunReceipt } from "./run-permit.ts";
import {
  errorBody,
  resultEnvelopeJson,
  retryAfterHeader,
  type AbilityOutcome,
  type ResponseHeaders,
} from "./outcome.ts";
import { auditTime } from "../audit.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

/** One ability call as its transport hands it over. */
export interface AbilityRequest {
  /** The call's id: audit record id, `X-Request-Id`, the receipt trust claims cite. */
  requestId: string;
  /** `performance.now()` when the call arrived; its duration counts from here. */
  started: number;
  /**
   * The `Authorization` header as received, or the key the transport already resolved for this
   * request (the MCP route authenticates before it knows whether a tool is called at all).
   */
  credential: { authorization: string | undefined } | { key: KeyRecord };
  /** The id named by the path or the MCP tool; undefined on `/abilities/execute`, where the body names it. */
  ability: string | undefined;
  /**
   * The request envelope (`{input, context?}`, plus `ability` on the execute path). HTTP passes a
   * reader rather than the value because an unauthenticated caller's body is never read: 401
   * comes before 413, 415 and malformed JSON.
   */
  body: { value: unknown } | { read: () => Promise<unknown> };
  /** The gateway's base URL as this client reaches it (PUBLIC_URL when set), for links in answers. */
  baseUrl: string;
  /**
   * The `Idempotency-Key` request header (Stripe's convention), when sent: it fills the input's
   * `idempotencyKey` ({@link applyIdempotencyHeader}). MCP has no headers per tool call.
   */
  idempotencyKey?: string;
  /** The `Gantry-Timeout-Ms` request header, when sent: a deadline shorter than the ability's (deadline-header.ts). */
  timeoutMs?: string;
  /** The client's address (client-address.ts), for the limit on failed authentication; none for MCP tool calls, authenticated already. */
  clientAddress?: string;
  /** Aborts when the client is gone (HTTP: the connection closed before the answer); the call's work stops. */
  signal?: AbortSignal;
  /** The request's headers, for a `traceparent` the client sent (its trace then holds the call's spans). */
  headers?: Readonly<Record<string, string | string[] | undefined>>;
}

interface CallState {
  key?: KeyRecord;
  tenant?: string;
  ability?: string;
  inputHash?: string;
  /** The trust-run permit the call consumed (run-permit.ts); its receipt is recorded after the call. */
  permit?: ConsumedPermit;
  resultJson?: string;
}

/** Runs the whole policy pipeline for one call and returns its outcome; audit and metrics included. */
export function runAbility(request: AbilityRequest, deps: GatewayDeps): Promise<AbilityOutcome> {
  if (!telemetryOn()) return runPipeline(request, deps, undefined);
  // One trace per call: this span, then a client and a server span per hop, then the service's queries.
  return inServerSpan("ability call", { "gantry.request_id": request.requestId }, request.headers ?? {}, (span) =>
    runPipeline(request, deps, span),
  );
}

async function runPipeline(
  request: AbilityRequest,
  deps: GatewayDeps,
  span: Span | undefined,
): Promise<AbilityOutcome> {
  const { requestId, started } = request;
  // Not X-Request-Id: the HTTP response has it from the start of the call (request-id.ts), and an MCP
  // tool call's id goes in its result, not on the HTTP response.
  const headers: ResponseHeaders = {};
  const state: CallState = {};
  let status = 500;
  let errorCode: string | undefined;
  try {
    const now = deps.now();
    const key =
      "key" in request.credential
        ? request.credential.key
        : await authenticate(
            request.credential.authorization,
            deps.keys,
            now,
            headers,
            request.clientAddress === undefined
              ? undefined
              : { address: request.clientAddress, failures: deps.authFailures },
          );
    state.key = key;
    state.tenant = key.tenant;
    deps.usage.used(key.id, key.source, now);

    const executePath = request.ability === undefined;
    const known = (id: unknown) => knownAbility(id, executePath, key.scopes, request.baseUrl);
    if (!executePath) state.ability = known(request.ability);
    const value = "value" in request.body ? request.body.value : await request.body.read();
    if (executePath && value !== null && typeof value === "object" && !Array.isArray(value)) {
      state.ability = known((value as Record<string, unknown>).ability);
    }
    const envelope = parseEnvelope(value, executePath);
    if (executePath && state.ability === undefined) state.ability = known(envelope.ability);
    const ability = abilityById.get(state.ability!)!;
    span?.updateName(ability.id);
    span?.setAttribute("gantry.ability", ability.id);

    // key.inspect and vertical.manifest_get (spec §5.11) and self-discovery (gantry.about,
    // capability.discover) are open to every authenticated key (OPEN_ABILITIES).
    if (!keyMayCall(key.scopes, ability.id)) {
      throw new GantryError("forbidden", `This key's scopes do not include ${ability.id}.`, {
        reason: `Call with a key whose scopes include "${ability.id}", "${ability.id.split(".")[0]}.*" or "*".`,
      });
    }

    const rateLimit = await enforceRateLimit(key, deps, headers);

    state.tenant = effectiveTenant(key, envelope.context.tenantId);
    if (request.idempotencyKey !== undefined) applyIdempotencyHeader(ability, envelope.input, request.idempotencyKey);
    const deadlineMs = callDeadlineMs(ability, request.timeoutMs, deps.config.UPSTREAM_TIMEOUT_MS);
    refuseBadShape(ability.id, envelope.input);
    validateInput(ability.id, envelope.input);
    // Serialised once, after validation applied defaults: what is hashed is exactly what runs.
    const inputJson = JSON.stringify(envelope.input);
    state.inputHash = hash("sha256", inputJson, "hex");

    // Consumed before dispatch, so of concurrent calls holding one permit exactly one runs.
    state.permit = await checkRunPermit(
      deps.permits,
      { tenant: state.tenant, keyId: key.id, runId: envelope.context.runId, requestId },
      ability,
      envelope.input,
    );

    const call: CallContext = {
      requestId,
      tenant: state.tenant,
      keyTenant: key.tenant,
      keyId: key.id,
      scopes: key.scopes,
      collections: key.collections,
      products: key.products,
      admin: key.admin,
      subTenants: key.sub_tenants,
      runId: envelope.context.runId,
      verticalId: envelope.context.verticalId,
      baseUrl: request.baseUrl,
      // Counted from the call's arrival; every hop gets what is left of it (kit/call-signal).
      deadline: Date.now() - (performance.now() - started) + deadlineMs,
      signal: request.signal,
    };
    // The key's own limit when it has one, so gantry.about reports what this key gets.
    const { resultJson, replayed } = await deps.dispatcher.execute(ability.service, ability.id, inputJson, call, {
      baseUrl: request.baseUrl,
      rateLimit,
    });
    if (replayed) headers["Idempotent-Replayed"] = "true";
    state.resultJson = resultJson;
    status = 200;
    return {
      ok: true,
      status: 200,
      ability: ability.id,
      requestId,
      envelopeJson: resultEnvelopeJson(ability.id, resultJson, performance.now() - started),
      headers,
    };
  } catch (err) {
    const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
    status = gerr.httpStatus;
    errorCode = gerr.code;
    if (status >= 500 && gerr.code !== "not_implemented") {
      const service = state.ability ? abilityById.get(state.ability)?.service : undefined;
      deps.metrics.upstreamErrors.inc({ service: service ?? "gateway", code: gerr.code });
      deps.log.error({ requestId, ability: state.ability, code: gerr.code, err: describeCause(gerr) }, "call failed");
    }
    Object.assign(headers, retryAfterHeader(gerr));
    const body = errorBody(gerr, requestId, state.ability);
    if (gerr.code === "not_implemented" && state.ability) {
      // The owner's reason names what is missing; the user also needs this gateway's docs page.
      body.reason = notImplementedReason(state.ability, gerr.reason, request.baseUrl);
    }
    return { ok: false, status, ability: state.ability, requestId, body, headers };
  } finally {
    // Awaited, so the receipt is readable (trust.status) as soon as the caller has the answer.
    if (state.permit)
      await recordRunReceipt(deps.permits, deps.log, {
        tenant: state.tenant!,
        requestId,
        permit: state.permit,
        ability: state.ability!,
        resultJson: state.resultJson,
        status,
        atMs: deps.now(),
      });
    const durationMs = performance.now() - started;
    const label = state.ability ?? "unknown";
    span?.setAttribute("http.response.status_code", status);
    if (errorCode && status >= 500) spanFailed(span, errorCode);
    else if (errorCode) span?.setAttribute("gantry.error_code", errorCode);
    deps.metrics.requests.inc({ ability: label, status });
    deps.metrics.latency.observe({ ability: label, status }, durationMs / 1000);
    deps.audit.record({
      requestId,
      tenant: state.tenant ?? "-",
      keyId: state.key?.id,
      ability: state.ability,
      status,
      errorCode,
      durationMs,
      inputHash: state.inputHash,
      at: auditTime(),
    });
  }
}

function knownAbility(id: unknown, executePath: boolean, scopes: readonly string[], baseUrl: string): string {
  if (executePath && id === undefined)
    throw new GantryError("invalid_request", 'The "ability" field is required on /abilities/execute.', {
      details: [{ path: "/ability", message: "/ability is required", code: "required" }],
    });
  if (typeof id !== "string" || !abilityById.has(id))
    throw unknownAbilityError(id, scopes, baseUrl, executePath ? "/ability" : "/path/id");
  return id;
}

function describeCause(err: GantryError): string {
  const parts = [err.message];
  let cause: unknown = err.cause;
  for (let i = 0; cause && i < 3; i++) {
    parts.push(cause instanceof Error ? cause.message : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join(" <- ");
}
