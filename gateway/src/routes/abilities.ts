/**
 * @module gateway/routes/abilities
 * The two ways to call an ability (spec §4.1, §4.2). Both run the same pipeline.
 */
import type { Request, Response } from "express";
import type { GatewayDeps } from "../deps.ts";
import { executeAbility } from "../pipeline/execute-ability.ts";

export function abilityRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => executeAbility(req, res, deps, String(req.params.id));
}

export function executeRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => executeAbility(req, res, deps, undefined);
}
