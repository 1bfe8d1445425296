/**
 * @module gateway/routes/base-url
 * The base URL links in answers use: PUBLIC_URL when set, because behind a proxy the Host a
 * request carries is the proxy's view, not the client's; else the request's protocol and Host.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { GatewayConfig } from "../config.ts";

export function baseUrlOf(req: IncomingMessage, config: Pick<GatewayConfig, "PUBLIC_URL">): string {
  return config.PUBLIC_URL?.replace(/\/$/, "") ?? `${protocolOf(req)}://${req.headers.host}`;
}

/** As Express's `req.protocol` with `trust proxy` on (app.ts): the first X-Forwarded-Proto, else the socket's. */
function protocolOf(req: IncomingMessage): string {
  const forwarded = req.headers["x-forwarded-proto"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0].trim();
  return first || ((req.socket as TLSSocket).encrypted ? "https" : "http");
}
