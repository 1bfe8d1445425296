/**
 * @module gateway/app
 * Assembles the HTTP surface. Handlers live in routes/ and pipeline/; this file only wires paths.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { GantryError } from "@gantry/kit";
import type { GatewayDeps } from "./deps.ts";
import { requestId } from "./pipeline/request-id.ts";
import { abilityRoute, executeRoute } from "./routes/abilities.ts";
import { healthRoute } from "./routes/health.ts";
import { mountDeveloperSurfaces } from "./routes/developer-surfaces.ts";
import { sendError } from "./respond.ts";

export function createApp(deps: GatewayDeps) {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("trust proxy", true);
  app.use(requestId);

  app.post("/v1/abilities/:id", abilityRoute(deps));
  app.post("/abilities/execute", executeRoute(deps));
  app.get("/health", healthRoute(deps));
  mountDeveloperSurfaces(app, deps);
  app.get("/metrics", async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  // Calls must be POST: say so instead of a bare 404.
  app.all(["/v1/abilities/:id", "/abilities/execute"], (req, res) => {
    res.setHeader("Allow", "POST");
    sendError(res, new GantryError("invalid_request", `${req.method} is not supported here; ability calls are POST with a JSON body.`));
  });
  app.use((req: Request, res: Response) => {
    sendError(res, new GantryError("not_found", `No route ${req.method} ${req.path}.`, { reason: "Ability calls are POST /v1/abilities/{id} or POST /abilities/execute." }));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    deps.log.error({ requestId: res.locals.requestId, err: String(err) }, "unhandled error");
    sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error"));
  });
  return app;
}
