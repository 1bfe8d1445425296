/**
 * @module gateway/routes/abilities
 * The two HTTP ways to call an ability (spec §4.1, §4.2): each translates the request into the
 * pipeline's call description and writes its outcome back, nothing more, so both paths (and MCP)
 * apply the same policies.
 */
import type { Request, Response } from "express";
import type { GatewayDeps } from "../deps.ts";
import { readJsonBody } from "../pipeline/body.ts";
import { runAbility } from "../pipeline/execute-ability.ts";
import { sendOutcome } from "../respond.ts";
import { baseUrlOf } from "./base-url.ts";

async function callAbility(req: Request, res: Response, deps: GatewayDeps, ability: string | undefined): Promise<void> {
  const out = await runAbility(
    {
      requestId: res.locals.requestId,
      started: res.locals.started,
      credential: { authorization: req.headers.authorization },
      ability,
      body: { read: async () => (await readJsonBody(req, deps.config.MAX_BODY_BYTES)).value },
      baseUrl: baseUrlOf(req, deps.config),
      idempotencyKey: req.get("idempotency-key"),
    },
    deps,
  );
  sendOutcome(res, out);
}

export function abilityRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => callAbility(req, res, deps, String(req.params.id));
}

export function executeRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => callAbility(req, res, deps, undefined);
}
