/**
 * @module gateway/routes/base-url
 * The base URL links in answers use: PUBLIC_URL when set, because behind a proxy the Host a
 * request carries is the proxy's view, not the client's; else the request's protocol and Host.
 */
import type { Request } from "express";
import type { GatewayConfig } from "../config.ts";

export function baseUrlOf(req: Request, config: Pick<GatewayConfig, "PUBLIC_URL">): string {
  return config.PUBLIC_URL?.replace(/\/$/, "") ?? `${req.protocol}://${req.get("host")}`;
}
