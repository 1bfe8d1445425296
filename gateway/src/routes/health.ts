/**
 * @module gateway/routes/health
 * `GET /health`: the gateway is up (200) and how each area service answers its gRPC health check.
 * A down service makes the status `degraded`, not a failed gateway: its abilities answer 503 while
 * the rest keep working.
 */
import type { Request, Response } from "express";
import type { GatewayDeps } from "../deps.ts";

export function healthRoute(deps: GatewayDeps) {
  return async (_req: Request, res: Response) => {
    const entries = await Promise.all(
      [...deps.health].map(async ([name, client]) => [name, await client.check(500)] as const),
    );
    const services = Object.fromEntries(entries);
    const allUp = entries.every(([, s]) => s === "SERVING");
    res.status(200).json({
      ok: true,
      status: allUp ? "ok" : "degraded",
      version: deps.version,
      services,
      rateLimiter: deps.limiter.kind,
    });
  };
}
