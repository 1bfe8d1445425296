/**
 * @module gateway/pipeline/execute-ability
 * The policy pipeline of one ability call, in order: authenticate → read body → resolve ability →
 * scope → rate limit → envelope → tenant → validate → dispatch → envelope out → audit + metrics.
 * Both `POST /v1/abilities/{id}` and `POST /abilities/execute` run exactly this; they differ only in
 * where the ability id comes from and in the status of an unknown id (404 vs 400, spec §4.2, §7).
 * MCP `tools/call` runs it too ({@link runAbility}): the same steps, with the body already parsed
 * and the key already resolved by the MCP route; only the way the outcome is written differs.
 */
import { hash } from "node:crypto";
import type { Request, Response } from "express";
import { abilityById, keyMayCall } from "@gantry/proto/catalogue";
import { GantryError, validateInput, type CallContext } from "@gantry/kit";
import { authenticate } from "./authenticate.ts";
import { readJsonBody } from "./body.ts";
import { effectiveTenant, parseEnvelope } from "./envelope.ts";
import { sendError, sendResult } from "../respond.ts";
import { enforceRateLimit } from "./rate-limit.ts";
import { metaHandlers } from "../meta/index.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

interface CallState {
  key?: KeyRecord;
  tenant?: string;
  ability?: string;
  inputHash?: string;
}

/** Where one call comes from. HTTP routes give only `ability`; MCP gives all of it. */
export interface AbilityCallSource {
  /** The id named by the route or MCP tool; undefined on `/abilities/execute`, where the body names it. */
  ability: string | undefined;
  /** The request envelope, already parsed (MCP). Absent: the JSON body is read from the request. */
  body?: unknown;
  /** The key, when the caller resolved it for this HTTP request already (MCP). */
  key?: KeyRecord;
  /** The call's request id (audit record id, receipt). Default: the HTTP request's `X-Request-Id`. */
  requestId?: string;
}

export type AbilityOutcome =
  | { ok: true; ability: string; resultJson: string; durationMs: number; requestId: string }
  | { ok: false; error: GantryError; ability?: string; requestId: string };

export async function executeAbility(req: Request, res: Response, deps: GatewayDeps, pathAbility: string | undefined): Promise<void> {
  const out = await runAbility(req, res, deps, { ability: pathAbility });
  if (out.ok) sendResult(res, out.ability, out.resultJson, out.durationMs);
  else sendError(res, out.error, out.ability);
}

/** Runs the whole policy pipeline for one call and returns its outcome; audit and metrics included. */
export async function runAbility(req: Request, res: Response, deps: GatewayDeps, source: AbilityCallSource): Promise<AbilityOutcome> {
  const pathAbility = source.ability;
  const state: CallState = {};
  const requestId: string = source.requestId ?? res.locals.requestId;
  const started: number = source.body === undefined ? res.locals.started : performance.now();
  let status = 500;
  let errorCode: string | undefined;
  try {
    const now = deps.now();
    const key = source.key ?? (await authenticate(req, res, deps.keys, now));
    state.key = key;
    state.tenant = key.tenant;
    deps.usage.used(key.id, key.source, now);

    const executePath = pathAbility === undefined;
    if (!executePath) state.ability = knownAbility(pathAbility, false);
    const { value } = source.body !== undefined ? { value: source.body } : await readJsonBody(req, deps.config.MAX_BODY_BYTES);
    if (executePath && value !== null && typeof value === "object" && !Array.isArray(value)) {
      state.ability = knownAbility((value as Record<string, unknown>).ability, true);
    }
    const envelope = parseEnvelope(value, executePath);
    if (executePath && state.ability === undefined) state.ability = knownAbility(envelope.ability, true);
    const ability = abilityById.get(state.ability!)!;

    // key.inspect and vertical.manifest_get are open to every authenticated key (spec §5.11).
    if (!keyMayCall(key.scopes, ability.id)) {
      throw new GantryError("forbidden", `This key's scopes do not include ${ability.id}.`, {
        reason: `Call with a key whose scopes include "${ability.id}", "${ability.id.split(".")[0]}.*" or "*".`,
      });
    }

    const policy = await enforceRateLimit(key, res, deps);

    state.tenant = effectiveTenant(key, envelope.context.tenantId);
    validateInput(ability.id, envelope.input);
    // Serialised once, after validation applied defaults: what is hashed is exactly what runs.
    const inputJson = JSON.stringify(envelope.input);
    state.inputHash = hash("sha256", inputJson, "hex");

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
    };

    let resultJson: string;
    if (ability.service === "gateway") {
      const handler = metaHandlers[ability.id];
      if (!handler) throw new GantryError("not_implemented", `${ability.id} is declared but not wired yet.`, { reason: "The gateway has no handler for it yet; see docs/abilities.md." });
      // The key's own limit when it has one, so gantry.about reports what this key gets.
      resultJson = JSON.stringify(await handler(envelope.input, call, { ...deps.metaEnv(req), rateLimit: policy }, deps));
    } else {
      // Defaults were applied in place by validation; send the defaulted input.
      resultJson = await deps.dispatcher.execute(ability.service, ability.id, inputJson, call);
    }
    status = 200;
    return { ok: true, ability: ability.id, resultJson, durationMs: performance.now() - started, requestId };
  } catch (err) {
    const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
    status = gerr.httpStatus;
    errorCode = gerr.code;
    if (status >= 500 && gerr.code !== "not_implemented") {
      const service = state.ability ? abilityById.get(state.ability)?.service : undefined;
      deps.metrics.upstreamErrors.inc({ service: service ?? "gateway", code: gerr.code });
      deps.log.error({ requestId, ability: state.ability, code: gerr.code, err: describeCause(gerr) }, "call failed");
    }
    return { ok: false, error: gerr, ability: state.ability, requestId };
  } finally {
    const durationMs = performance.now() - started;
    const label = state.ability ?? "unknown";
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
      at: new Date().toISOString(),
    });
  }
}

function knownAbility(id: unknown, executePath: boolean): string {
  if (executePath) {
    if (id === undefined) throw new GantryError("invalid_request", 'The "ability" field is required on /abilities/execute.', { details: [{ path: "/ability", message: "/ability is required", code: "required" }] });
    if (typeof id !== "string" || !abilityById.has(id)) {
      throw new GantryError("invalid_request", `Unknown ability ${JSON.stringify(id)}.`, {
        reason: "GET /v1/abilities lists the abilities this key may call.",
        details: [{ path: "/ability", message: "/ability must be one of the catalogue's ability ids", code: "enum" }],
      });
    }
    return id;
  }
  if (typeof id !== "string" || !abilityById.has(id)) {
    throw new GantryError("unknown_ability", `No ability has the id ${JSON.stringify(id)}.`, { reason: "GET /v1/abilities lists the abilities this key may call." });
  }
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
