/**
 * @module gateway/routes/abilities
 * The two HTTP ways to call an ability (spec §4.1, §4.2): each translates the request into the
 * pipeline's call description and writes its outcome back, nothing more, so both paths (and MCP)
 * apply the same policies.
 *
 * `POST /v1/abilities/{id}` is the hot path, so main.ts hands it to {@link abilityFastPath} before
 * Express sees the request: Express's routing and response helpers cost a sizeable share of a whole
 * hop's CPU (docs/benchmarks.md, *Express routing on the hot path*). Only an exact match takes the fast path;
 * any other spelling (a trailing slash, other case, a wrong method) goes through Express's routes
 * in app.ts, which end in this same handler or in their error answers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, Response } from "express";
import { callerGone } from "@gantry/kit";
import type { GatewayDeps } from "../deps.ts";
import { readJsonBody } from "../pipeline/body.ts";
import { runAbility } from "../pipeline/execute-ability.ts";
import { DEADLINE_HEADER } from "../pipeline/deadline-header.ts";
import { startCall } from "../pipeline/request-id.ts";
import { sendOutcome, sendUnhandled } from "../respond.ts";
import { baseUrlOf } from "./base-url.ts";

async function callAbility(
  req: IncomingMessage,
  res: ServerResponse,
  deps: GatewayDeps,
  ability: string | undefined,
  call: { requestId: string; started: number },
): Promise<void> {
  const idempotencyKey = req.headers["idempotency-key"];
  const timeoutMs = req.headers[DEADLINE_HEADER];
  // A client that disconnects before its answer stops the call's work on every hop.
  const caller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) caller.abort(callerGone());
  };
  res.once("close", onClose);
  const out = await runAbility(
    {
      ...call,
      credential: { authorization: req.headers.authorization },
      ability,
      body: { read: async () => (await readJsonBody(req, deps.config.MAX_BODY_BYTES)).value },
      baseUrl: baseUrlOf(req, deps.config),
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey[0] : idempotencyKey,
      timeoutMs: Array.isArray(timeoutMs) ? timeoutMs[0] : timeoutMs,
      clientAddress: deps.clientAddress(req),
      signal: caller.signal,
      headers: req.headers,
    },
    deps,
  );
  sendOutcome(res, out);
}

const expressCall = (res: Response) => ({
  requestId: res.locals.requestId as string,
  started: res.locals.started as number,
});

export function abilityRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => callAbility(req, res, deps, String(req.params.id), expressCall(res));
}

export function executeRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => callAbility(req, res, deps, undefined, expressCall(res));
}

const FAST_PATH = /^\/v1\/abilities\/([a-z0-9_.-]+)(?:\?.*)?$/;

/**
 * Serves `POST /v1/abilities/{id}` on the bare `node:http` request when the path is exactly that;
 * returns false (untouched) for everything else. Same request id, pipeline and answer as the
 * Express route.
 */
export function abilityFastPath(deps: GatewayDeps) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method !== "POST") return false;
    const m = FAST_PATH.exec(req.url ?? "");
    if (!m) return false;
    const call = startCall(res);
    // runAbility answers every failure itself; reaching the catch is a bug, answered as Express would.
    callAbility(req, res, deps, m[1], call).catch((err: unknown) => sendUnhandled(res, deps.log, call.requestId, err));
    return true;
  };
}
