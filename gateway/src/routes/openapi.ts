/**
 * @module gateway/routes/openapi
 * `GET /openapi.json`: the OpenAPI 3.1 description (public, like the catalogue it is built from).
 */
import type { Request, Response } from "express";
import { openApiJson } from "../docs/openapi.ts";
import type { GatewayDeps } from "../deps.ts";
import { baseUrlOf } from "./base-url.ts";

export function openApiRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => {
    res.setHeader("Cache-Control", "public, max-age=300");
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.type("application/json").send(
      openApiJson({
        baseUrl: baseUrlOf(req, deps.config),
        version: deps.version,
        maxBodyBytes: deps.config.MAX_BODY_BYTES,
        rateLimit: deps.defaultRateLimit,
      }),
    );
  };
}
