/**
 * @module gateway/routes/openapi
 * `GET /openapi.json`: the OpenAPI 3.1 description (public, like the catalogue it is built from).
 */
import type { Request, Response } from "express";
import { openApiJson } from "../docs/openapi.ts";
import type { GatewayDeps } from "../deps.ts";

export function openApiRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => {
    const env = deps.metaEnv(req);
    res.setHeader("Cache-Control", "public, max-age=300");
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.type("application/json").send(openApiJson({ baseUrl: env.baseUrl, version: deps.version, maxBodyBytes: deps.config.MAX_BODY_BYTES, rateLimit: deps.defaultRateLimit }));
  };
}
