/**
 * @module kit/ingress
 * Public HTTP a service answers through the gateway without an API key
 * (proto/gantry/ingress/v1/ingress.proto): provider webhooks at `/v1/webhooks/{service}/…` and
 * signed, expiring file links at `/v1/files/{service}/…`. The gateway stays the one public HTTP
 * surface (one Ingress, one TLS end, one rate limiter); the service gets the request as received,
 * raw body included, so it can verify a provider's signature over the exact bytes.
 *
 * These requests are not tenant calls: the handler runs in system scope and narrows to a tenant
 * (`withTenant`) once it knows which one the webhook or link belongs to. It authenticates the
 * request itself (signature, signed link) — the gateway has checked nothing but size and rate.
 *
 * @example
 * grpcServices: (ctx) => [
 *   ingressService(ctx.log, async (req) => {
 *     if (req.route === "webhooks" && req.path === "/provider_a") return handleStripeEvent(ctx, req);
 *     throw new GantryError("not_found", `No webhook endpoint ${req.path}.`);
 *   }),
 * ],
 */
import { INGRESS_PROTO } from "@gantry/proto/paths";
import { GantryError } from "./errors.ts";
import { type grpc, lookupService, makeClient, toGrpcError } from "./grpc.ts";
import type { CallSigner } from "./call-auth.ts";
import type { Logger } from "./logger.ts";
import { asSystem } from "./tenancy.ts";
import type { GrpcHandlers } from "./grpc-server.ts";
import type { IngressRequest as IngressRequestMessage } from "./generated/grpc.ts";

/**
 * `gantry.ingress.v1.IngressRequest`, with `route` narrowed to the two prefixes the gateway forwards
 * (a string on the wire).
 */
export type IngressRequest = Omit<IngressRequestMessage, "route"> & { route: "webhooks" | "files" };

/** `gantry.ingress.v1.IngressResponse` (keepCase). */
export interface IngressResponse {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export type IngressHandler = (req: IngressRequest) => Promise<IngressResponse>;

/**
 * A public answer: plain text unless `headers` say otherwise, never sniffed, not cached, and under a
 * `default-src 'none'` content security policy (it shares the API's origin, so nothing in it may
 * run there). A file's own headers override these.
 */
export function publicAnswer(
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): IngressResponse {
  return {
    status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'",
      ...headers,
    },
    body,
  };
}

/** The `HttpIngress` gRPC service answering with `handle`; register it through `grpcServices`. */
export function ingressService(
  log: Logger,
  handle: IngressHandler,
): { service: grpc.ServiceDefinition; impl: grpc.UntypedServiceImplementation } {
  const Service = lookupService(INGRESS_PROTO, "gantry.ingress.v1.HttpIngress");
  const impl: GrpcHandlers<"gantry.ingress.v1.HttpIngress"> = {
    Handle: (call, callback) => {
      // The gateway forwards only its two public prefixes (gateway/src/routes).
      const req = call.request as IngressRequest;
      asSystem(() => handle(req)).then(
        (res) =>
          callback(null, {
            status: res.status,
            headers: res.headers ?? {},
            body: typeof res.body === "string" ? Buffer.from(res.body) : (res.body ?? Buffer.alloc(0)),
          }),
        (err) => {
          const gerr = err instanceof GantryError ? err : null;
          if (!gerr || gerr.httpStatus >= 500)
            log.error(
              { requestId: req.request_id, route: req.route, path: req.path, err: String(gerr?.cause ?? err) },
              "ingress request failed",
            );
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
  };
  // Served by the kit's server and by grpc-js in tests, which both take grpc-js's untyped shape.
  return { service: Service.service, impl: impl as unknown as grpc.UntypedServiceImplementation };
}

export interface IngressClient {
  handle(
    req: IngressRequest,
    deadlineMs: number,
  ): Promise<IngressResponse & { headers: Record<string, string>; body: Buffer }>;
  close(): void;
}

/** `signer`: the gateway's key for the service (kit/call-auth). */
export function ingressClient(addr: string, signer?: CallSigner): IngressClient {
  const client = makeClient(INGRESS_PROTO, "gantry.ingress.v1.HttpIngress", addr, { signer });
  return {
    handle: (req, deadlineMs) => client.unary("Handle", req, { deadlineMs }),
    close: () => client.close(),
  };
}
