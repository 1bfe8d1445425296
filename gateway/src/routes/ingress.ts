/**
 * @module gateway/routes/ingress
 * `POST /v1/webhooks/{service}/…` and `GET|HEAD /v1/files/{service}/…`: public HTTP that needs no
 * API key, forwarded to the owning service's `HttpIngress` (kit/src/ingress.ts), which
 * authenticates it itself (a provider's signature over the raw body, a signed link). The gateway
 * only bounds it: body size, a per-client-address rate limit, a deadline. A service that takes no
 * such requests answers UNIMPLEMENTED, shown as 404.
 */
import type express from "express";
import type { Request, Response } from "express";
import { type AreaService, AREA_SERVICES, GantryError, type IngressRequest, routeNotFound } from "@gantry/kit";
import type { GatewayDeps } from "../deps.ts";
import { readRawBody } from "../pipeline/body.ts";
import { sendError } from "../respond.ts";

/** Webhook bodies are small JSON or form documents; providers send well under this. */
export const INGRESS_BODY_LIMIT_BYTES = 1024 * 1024;
/** Per client address, shared by every ingress route (a provider's retries stay far below it). */
export const INGRESS_RATE_LIMIT = { limit: 600, windowSeconds: 60 };
const INGRESS_DEADLINE_MS = 30_000;
/** Request headers a service must never see: the caller's credentials for other routes. */
const DROPPED_REQUEST_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);
/** What a service may set on a public answer: no cookies, no CORS, nothing that widens the API's origin. */
const KEPT_RESPONSE_HEADERS = new Set([
  "content-type",
  "content-disposition",
  "content-security-policy",
  "cache-control",
  "etag",
  "last-modified",
]);
const SERVICES = new Set<string>(AREA_SERVICES.map((s) => s.name));

export function mountIngress(app: express.Express, deps: GatewayDeps): void {
  const forward = (route: IngressRequest["route"]) => async (req: Request, res: Response) => {
    const service = String(req.params.service);
    try {
      if (!SERVICES.has(service))
        throw routeNotFound(`No service '${service}': ${route} go to /v1/${route}/{service}/….`);
      const ip = req.ip ?? "unknown";
      const decision = await deps.limiter.take(`ingress:${ip}`, INGRESS_RATE_LIMIT);
      if (!decision.allowed)
        throw new GantryError("rate_limited", `Too many ${route} requests from ${ip}.`, {
          retryAfterMs: decision.resetMs,
        });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || DROPPED_REQUEST_HEADERS.has(name)) continue;
        headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const queryAt = req.originalUrl.indexOf("?");
      const rest = req.params.rest as string[] | string | undefined;
      const answer = await deps.ingress(service as AreaService).handle(
        {
          route,
          method: req.method,
          path: `/${Array.isArray(rest) ? rest.join("/") : (rest ?? "")}`,
          query: queryAt >= 0 ? req.originalUrl.slice(queryAt + 1) : "",
          headers,
          body: req.method === "POST" ? await readRawBody(req, INGRESS_BODY_LIMIT_BYTES) : Buffer.alloc(0),
          request_id: String(res.locals.requestId ?? ""),
          remote_addr: ip,
        },
        INGRESS_DEADLINE_MS,
      );
      for (const [name, value] of Object.entries(answer.headers)) {
        const lower = name.toLowerCase();
        if (KEPT_RESPONSE_HEADERS.has(lower) || lower.startsWith("x-")) res.setHeader(lower, value);
      }
      res.status(answer.status || 200).send(req.method === "HEAD" ? undefined : answer.body);
    } catch (thrown) {
      let err =
        thrown instanceof GantryError ? thrown : new GantryError("internal", "internal error", { cause: thrown });
      if (err.code === "not_implemented" || err.code === "method_not_allowed")
        err = routeNotFound(`The ${service} service takes no ${route}.`);
      if (err.httpStatus >= 500 && err.code !== "unavailable")
        deps.log.error(
          { requestId: res.locals.requestId, service, route, err: String(err.cause ?? err) },
          "ingress failed",
        );
      sendError(res, err);
    }
  };
  app.post("/v1/webhooks/:service/*rest", forward("webhooks"));
  app.get("/v1/files/:service/*rest", forward("files"));
  app.head("/v1/files/:service/*rest", forward("files"));
}
