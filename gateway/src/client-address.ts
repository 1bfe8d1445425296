/**
 * @module gateway/client-address
 * Whose request this is, for limits keyed by address (ingress, failed authentication). Only the
 * hops named in TRUSTED_PROXIES may speak for a client through `X-Forwarded-For`: with every hop
 * trusted, as before, any caller could name any address and so pick (or dodge) the limit it is
 * counted under. Unset, the address is the socket's. The same list is Express's `trust proxy`
 * (app.ts), so `req.ip` agrees.
 *
 * @example
 * const addressOf = clientAddress("loopback, 10.0.0.0/8");
 * addressOf(req); // the first address not in the list, walking X-Forwarded-For from the socket
 */
import type { IncomingMessage } from "node:http";
import { createRequire } from "node:module";

type ProxyAddr = ((req: IncomingMessage, trust: (addr: string, i: number) => boolean) => string) & {
  compile(list: string[]): (addr: string, i: number) => boolean;
};
// proxy-addr (Express's own, CommonJS) parses the list and walks the header exactly as Express does.
const proxyaddr = createRequire(import.meta.url)("proxy-addr") as ProxyAddr;

/** TRUSTED_PROXIES as a list (`""` → none). */
export function trustedProxies(setting: string): string[] {
  return setting
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

export function clientAddress(setting: string): (req: IncomingMessage) => string {
  const list = trustedProxies(setting);
  if (list.length === 0) return (req) => req.socket.remoteAddress ?? "unknown";
  const trust = proxyaddr.compile(list);
  return (req) => proxyaddr(req, trust);
}
