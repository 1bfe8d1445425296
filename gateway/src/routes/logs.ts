/**
 * @module gateway/routes/logs
 * `GET /v1/logs/{logId}/checkpoint`, `…/tile/{L}/{N}[.p/{W}]`, `…/tile/entries/{N}[.p/{W}]`: each
 * tenant's receipt log as C2SP tlog-tiles, read-only and without a key, so anyone holding a receipt
 * (or a tenant's log id, from trust.status) checks inclusion and consistency with any tlog-tiles
 * client. The trust service answers (services/trust/src/tiles.ts); tiles never change, so they are
 * cached for a year, the checkpoint for a few seconds.
 */
import type { Request, Response } from "express";
import { GantryError } from "@gantry/kit";
import type { GatewayDeps } from "../deps.ts";
import { sendError } from "../respond.ts";

export function logsRoute(deps: GatewayDeps) {
  return async (req: Request, res: Response) => {
    try {
      const path = ([] as string[]).concat(req.params.path ?? []).join("/");
      const r = await deps.permits.logResource(String(req.params.logId), path);
      res.setHeader("Cache-Control", r.immutable ? "public, max-age=31536000, immutable" : "public, max-age=5");
      res.type(r.content_type).send(Buffer.from(r.body));
    } catch (err) {
      sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err }));
    }
  };
}
