/**
 * @module gateway/app
 * Assembles the HTTP surface. Handlers live in routes/ and pipeline/; this file only wires paths.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { GantryError, routeNotFound } from "@gantry/kit";
import type { GatewayDeps } from "./deps.ts";
import { trustedProxies } from "./client-address.ts";
import { requestId } from "./pipeline/request-id.ts";
import { abilityRoute, executeRoute } from "./routes/abilities.ts";
import { healthRoute } from "./routes/health.ts";
import { receiptKeysRoute } from "./routes/receipt-keys.ts";
import { logsRoute } from "./routes/logs.ts";
import { mountIngress } from "./routes/ingress.ts";
import { mountDeveloperSurfaces } from "./routes/developer-surfaces.ts";
import { sendError, sendUnhandled } from "./respond.ts";

export function createApp(deps: GatewayDeps) {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  // Only the configured hops speak for a client (client-address.ts); none by default.
  app.set("trust proxy", trustedProxies(deps.config.TRUSTED_PROXIES));
  app.use(requestId);

  app.post("/v1/abilities/:id", abilityRoute(deps));
  app.post("/abilities/execute", executeRoute(deps));
  app.get("/health", healthRoute(deps));
  app.get("/.well-known/jwks.json", receiptKeysRoute(deps));
  app.get("/v1/logs/:logId/*path", logsRoute(deps));
  mountDeveloperSurfaces(app, deps);
  mountIngress(app, deps);
  app.get("/metrics", async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  // A wrong method gets 405 naming the allowed ones, not a bare 404.
  const methodNotAllowed = (allow: string) => (req: Request, res: Response) => {
    res.setHeader("Allow", allow);
    sendError(
      res,
      new GantryError("method_not_allowed", `${req.method} is not supported on ${req.path}; use ${allow}.`, {
        reason: "Ability calls are POST with a JSON body; GET /v1/abilities/{id} describes one.",
      }),
    );
  };
  app.all("/v1/abilities/:id", methodNotAllowed("GET, POST"));
  app.all("/abilities/execute", methodNotAllowed("POST"));
  app.use((req: Request, res: Response) => {
    sendError(
      res,
      routeNotFound(
        `No route ${req.method} ${req.path}.`,
        "Ability calls are POST /v1/abilities/{id} or POST /abilities/execute.",
      ),
    );
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    sendUnhandled(res, deps.log, res.locals.requestId, err);
  });
  return app;
}
