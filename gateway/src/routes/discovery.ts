/**
 * @module gateway/routes/discovery
 * `GET /v1/abilities` (the abilities this key may call, each with its input JSON Schema, an example
 * input, whether it is live and what it still needs on this deployment) and `GET /v1/abilities/{id}`
 * (one of them). Authenticated and rate
 * limited like calls; per-key, so never cached by intermediaries.
 */
import type { Request, Response } from "express";
import { abilityById, areas } from "@gantry/proto/catalogue";
import { GantryError } from "@gantry/kit";
import { sendError } from "../respond.ts";
import { abilitiesFor, inScope, toView, withDetails } from "../discovery/abilities.ts";
import { keyRateLimit } from "../pipeline/rate-limit.ts";
import { STATUS_TEXT } from "../discovery/live-status.ts";
import { authorizeRead } from "./read-access.ts";
import { unknownAbilityError } from "../pipeline/unknown-ability.ts";
import { baseUrlOf } from "./base-url.ts";
import type { GatewayDeps } from "../deps.ts";

function noStore(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Vary", "Authorization");
}

export function listAbilitiesRoute(deps: GatewayDeps) {
  return async (req: Request, res: Response) => {
    try {
      const key = await authorizeRead(req, res, deps);
      const area = req.query.area;
      if (area !== undefined && (typeof area !== "string" || !areas.includes(area))) {
        throw new GantryError("invalid_request", `Unknown area ${JSON.stringify(area)}.`, {
          details: [{ path: "/query/area", message: `/query/area must be one of ${areas.join(", ")}`, code: "enum" }],
        });
      }
      let abilities = await abilitiesFor(key.scopes, deps.liveStatus);
      if (area) abilities = abilities.filter((a) => a.area === area);
      const baseUrl = baseUrlOf(req, deps.config);
      noStore(res);
      res.status(200).json({
        ok: true,
        tenant: key.tenant,
        keyId: key.id,
        version: deps.version,
        count: abilities.length,
        live: abilities.filter((a) => a.live).length,
        limits: {
          rateLimit: keyRateLimit(key, deps.defaultRateLimit),
          maxBodyBytes: deps.config.MAX_BODY_BYTES,
          authCacheSeconds: 30,
        },
        urls: {
          docs: `${baseUrl}/docs`,
          mcp: `${baseUrl}/mcp`,
          openapi: `${baseUrl}/openapi.json`,
          execute: `${baseUrl}/abilities/execute`,
        },
        statuses: STATUS_TEXT,
        abilities: abilities.map(withDetails),
      });
    } catch (err) {
      sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err }));
    }
  };
}

export function getAbilityRoute(deps: GatewayDeps) {
  return async (req: Request, res: Response) => {
    const id = String(req.params.id);
    try {
      const key = await authorizeRead(req, res, deps);
      const def = abilityById.get(id);
      if (!def) throw unknownAbilityError(id, key.scopes, baseUrlOf(req, deps.config), "/path/id");
      if (!inScope(key.scopes, id)) {
        throw new GantryError("forbidden", `This key's scopes do not include ${id}.`, {
          reason: `Use a key whose scopes include "${id}", "${def.area}.*" or "*".`,
        });
      }
      const state = (await deps.liveStatus.details([id])).get(id) ?? { status: "unavailable" as const, needs: [] };
      noStore(res);
      res.status(200).json({ ok: true, ...withDetails(toView(def, state)), statusText: STATUS_TEXT[state.status] });
    } catch (err) {
      sendError(
        res,
        err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err }),
        abilityById.has(id) ? id : undefined,
      );
    }
  };
}
