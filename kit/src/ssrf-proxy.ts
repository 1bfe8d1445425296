/**
 * @module kit/ssrf-proxy
 * A filtering HTTP proxy on loopback that puts a headless browser's traffic under the kit's one
 * SSRF guard (kit/src/ssrf.ts): the browser is started with `--proxy-server=<this proxy>` and
 * `--proxy-bypass-list=<-loopback>` (Chromium otherwise sends loopback straight out, bypassing any
 * proxy), so every request a page makes — subresources, redirects, fetch/XHR, WebSockets, which
 * Chromium tunnels with CONNECT — arrives here and is judged by the same rules as `SsrfGuard.fetch`:
 *
 * - plain `http://` requests: `guard.checkUrl` (scheme, credentials, port, literal address), then
 *   sent over the guard's own pool (`guard.dispatcher()`): a kept-alive connection to the origin is
 *   reused, and every new one is made as `SsrfGuard.fetch` makes it (every resolved address checked
 *   at connect time, so DNS rebinding cannot slip through, and the peer address re-checked);
 * - `CONNECT host:port` tunnels (https, wss): the same URL rules for `https://host:port/`, the name
 *   resolved with `guard.resolveChecked`, and the tunnel opened to the checked address itself (no
 *   second resolution).
 *
 * A refused request answers 403 with `x-gantry-ssrf: <rule>` and is reported to `onBlocked`; the
 * proxy never follows redirects itself (the browser does, and each hop comes back through here).
 * A request the proxy could not complete answers 502 with `x-gantry-proxy-error`, so a caller can
 * tell it from the site's own 502. The address each `host:port` was last connected to is kept for
 * reporting (`addressOf`).
 */
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import { SsrfBlockedError, type SsrfGuard } from "./ssrf.ts";

export interface SsrfProxyOptions {
  /** Called for every refused request (URL and the rule that refused it). */
  onBlocked?: (url: string, rule: string, message: string) => void;
}

export interface SsrfProxy {
  /** `http://127.0.0.1:<port>`: pass as the browser's `--proxy-server`. */
  readonly url: string;
  readonly port: number;
  /** The address last connected to for `host:port` (as the URL spells them), if any. */
  addressOf(host: string, port: number): string | undefined;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Starts the proxy on 127.0.0.1 (a free port). */
export async function startSsrfProxy(guard: SsrfGuard, options: SsrfProxyOptions = {}): Promise<SsrfProxy> {
  const addresses = new Map<string, string>();
  // CONNECT sockets leave the HTTP server's bookkeeping: tracked so close() ends them.
  const tunnels = new Set<Duplex>();
  const remember = (host: string, port: number, address: string) => {
    const key = `${host}:${port}`;
    addresses.delete(key);
    addresses.set(key, address);
    // Bounded: a long-lived browser visits many hosts.
    if (addresses.size > 1000) addresses.delete(addresses.keys().next().value as string);
  };
  const refuse = (url: string, err: unknown): { rule: string; message: string } => {
    const rule = err instanceof SsrfBlockedError ? err.rule : "address";
    const message = err instanceof Error ? err.message : String(err);
    options.onBlocked?.(url, rule, message);
    return { rule, message };
  };

  const server = http.createServer((req, res) => {
    const target = req.url ?? "";
    let url: URL;
    try {
      url = guard.checkUrl(target);
      if (url.protocol !== "http:")
        throw new SsrfBlockedError("scheme", target, "only http:// is proxied in the clear");
    } catch (err) {
      const { rule, message } = refuse(target, err);
      res.writeHead(403, { "content-type": "text/plain", "x-gantry-ssrf": rule }).end(message);
      return;
    }
    const port = Number(url.port || 80);
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (!HOP_BY_HOP.has(k) && k !== "expect" && v !== undefined) headers[k] = v;
    // A request without a length or chunked body has none: a stream would go out chunked.
    const length = req.headers["content-length"];
    const hasBody = length !== undefined ? length !== "0" : req.headers["transfer-encoding"] !== undefined;
    const upstream = guard.dispatcher();
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    upstream
      .request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body: hasBody ? req : undefined,
        signal: gone.signal,
      })
      .then(
        (up) => {
          // The peer of the pooled connection the request went over, checked when it was made.
          if (upstream.address) remember(url.hostname, port, upstream.address);
          const out: http.OutgoingHttpHeaders = {};
          for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
          res.writeHead(up.statusCode, out);
          up.body.on("error", () => res.destroy());
          up.body.pipe(res);
        },
        (err: Error) => {
          if (res.headersSent || gone.signal.aborted) return void res.destroy();
          let cause: unknown = err;
          while (cause instanceof Error && !(cause instanceof SsrfBlockedError) && cause.cause) cause = cause.cause;
          if (cause instanceof SsrfBlockedError) {
            const { rule, message } = refuse(url.href, cause);
            res.writeHead(403, { "content-type": "text/plain", "x-gantry-ssrf": rule }).end(message);
          } else
            res
              .writeHead(502, { "content-type": "text/plain", "x-gantry-proxy-error": "connect" })
              .end(`upstream: ${err.message}`);
        },
      );
  });

  server.on("connect", (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    const target = req.url ?? "";
    tunnels.add(client);
    client.on("close", () => tunnels.delete(client));
    client.on("error", () => {});
    const answer = (status: string, extra = "") => client.end(`HTTP/1.1 ${status}\r\n${extra}\r\n`);
    void (async () => {
      let url: URL;
      let address: string;
      try {
        url = guard.checkUrl(`https://${target}/`);
        const host = url.hostname.replace(/^\[|\]$/g, "");
        address = net.isIP(host) ? host : (await guard.resolveChecked(host, url.href))[0].address;
      } catch (err) {
        if (err instanceof SsrfBlockedError || !(err instanceof Error)) {
          const { rule } = refuse(target, err);
          return answer("403 Forbidden", `x-gantry-ssrf: ${rule}\r\n`);
        }
        return answer("502 Bad Gateway");
      }
      const port = Number(url.port || 443);
      const upstream = net.connect({ host: address, port });
      upstream.once("connect", () => {
        // The address connected to is the one checked above: no second resolution to rebind.
        remember(url.hostname, port, address);
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => (client.writable ? answer("502 Bad Gateway") : client.destroy()));
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    })();
  });
  // Plain-http WebSocket upgrades are refused: Chromium tunnels ws:// through CONNECT when proxied.
  server.on("upgrade", (_req, socket: Duplex) => socket.end("HTTP/1.1 403 Forbidden\r\n\r\n"));
  server.on("clientError", (_err, socket: Duplex) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    addressOf: (host, p) => addresses.get(`${host}:${p}`),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of tunnels) t.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
