/**
 * @module kit/ssrf
 * The one SSRF guard: every outbound HTTP request to an address a caller (tenant, user, document)
 * chose goes through `SsrfGuard.fetch`.
 *
 * - Only `http:` and `https:`; no credentials in the URL; ports 80/443 unless `allowedPorts` says more.
 * - Addresses: only what `ipaddr.js` classifies as `unicast`: no loopback, private (RFC 1918), CGNAT,
 *   link-local (incl. the metadata address 169.254.169.254), unspecified (0.0.0.0, ::), broadcast,
 *   multicast, reserved/documentation, unique-local, IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::),
 *   6to4, Teredo. IPv4 written as decimal, hex or octal (`http://2130706433/`, `0x7f.1`, `0177.0.0.1`)
 *   is normalized by the WHATWG URL parser and judged as the address it denotes.
 * - Checked AT CONNECT TIME: the undici Agent's `connect.lookup` resolves the name and refuses it when
 *   ANY of its addresses is not allowed, and the connector refuses literal hosts (which skip lookup)
 *   and verifies the connected socket's peer address. So DNS rebinding (public when checked, private
 *   when used) cannot slip through. A pre-flight resolution gives the common case an early, clear error.
 * - Connections are kept alive and reused, per guard and per origin (scheme, host, port), in one
 *   pooled Agent each guard owns: a connection was checked when it was made, and it stays with that
 *   peer, so reusing it asks nothing new of the guard; every new connection is checked again (a name
 *   that now resolves inside is refused then). A guard's rules are fixed when it is created, so a
 *   connection is never reused under other rules: another guard has its own pool. `close()` ends them.
 * - Redirects are followed by hand (at most `maxRedirects`, default 5), each hop re-checked from the
 *   top; a hop to another origin drops `authorization`, `cookie` and `proxy-authorization`.
 * - Caps: total time (`timeoutMs`, all hops and the body) and response size (`maxBytes`, of the
 *   decoded body: the rest is discarded and the result says `truncated`).
 *
 * Test-only escape hatch: `allowLoopback: true` additionally allows 127.0.0.0/8 and ::1 (nothing
 * else) and lifts the port allow-list, so tests can talk to local servers. Off by default; a guard
 * created with it logs a warning at creation and on every request that uses it.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type Socket } from "node:net";
import ipaddr from "ipaddr.js";
import { createRequire } from "node:module";
import type { Agent, buildConnector, Headers as UndiciHeaders, fetch as undiciFetch } from "undici";
import type { Logger } from "./logger.ts";
import { callSignal } from "./call-signal.ts";
import type * as SsrfPool from "./ssrf-pool.ts";
import type { PeerDispatcher } from "./ssrf-pool.ts";

let pool: typeof SsrfPool | undefined;
/**
 * undici (the pool, the connector, fetch) loaded at a guard's first connection, not with the kit:
 * every process imports the kit, and undici's 110 modules were about 150 ms of CPU at each one's
 * start, in services that never fetch as well (docs/benchmarks.md, *Cold start*).
 */
function undici(): typeof SsrfPool {
  pool ??= createRequire(import.meta.url)("./ssrf-pool.ts") as typeof SsrfPool;
  return pool;
}

export const SSRF_DEFAULT_PORTS: readonly number[] = [80, 443];

/** A DNS resolver with the shape of `dns.lookup` called with `{ all: true }`. */
export type SsrfResolver = (
  hostname: string,
  callback: (err: Error | null, addresses: LookupAddress[]) => void,
) => void;

export interface SsrfGuardOptions {
  /** Ports allowed besides nothing else; default 80 and 443. */
  allowedPorts?: readonly number[];
  /** Redirect hops followed at most; default 5. */
  maxRedirects?: number;
  /** Total time of one `fetch` (every hop and the body), ms; default 10 000. */
  timeoutMs?: number;
  /** Largest response body kept, bytes (decoded); default 5 MiB. */
  maxBytes?: number;
  /** TEST ONLY: also allow loopback (127.0.0.0/8, ::1) and any port. Logged loudly. */
  allowLoopback?: boolean;
  /** DNS resolver (default `dns.lookup` with all addresses); tests inject one. */
  resolve?: SsrfResolver;
  /** Where the escape-hatch warning goes; default stderr. */
  log?: Pick<Logger, "warn">;
}

export interface SsrfRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** `follow` (default): by hand, re-checked; `manual`: return the 3xx as is; `error`: a 3xx throws. */
  redirect?: "follow" | "manual" | "error";
  signal?: AbortSignal;
  /** Overrides the guard's caps for this request. */
  timeoutMs?: number;
  maxBytes?: number;
}

export interface SsrfResponse {
  status: number;
  headers: UndiciHeaders;
  /** The final URL (after redirects). */
  url: string;
  /** Every URL requested, in order (the first is the one asked for). */
  chain: string[];
  /** The peer address of the final hop's connection. */
  address: string | undefined;
  body: Uint8Array;
  /** The body was longer than the cap and was cut there. */
  truncated: boolean;
  elapsedMs: number;
  text(): string;
}

export type SsrfRule =
  | "url"
  | "scheme"
  | "credentials"
  | "port"
  | "address"
  | "redirect_limit"
  | "redirect_location"
  | "redirect_refused";

/** The request was refused by a rule (never sent, or its connection was cut before any byte). */
export class SsrfBlockedError extends Error {
  readonly code = "EBLOCKED";
  readonly rule: SsrfRule;
  readonly url: string;
  /**
   * For the log only: what the guard saw (the addresses a name resolved to, the peer connected to).
   * The message, which callers may show, never holds an address the caller did not write: a name's
   * internal DNS answer would tell an outsider what is inside.
   */
  readonly detail: string;
  constructor(rule: SsrfRule, url: string, message: string, detail = message) {
    super(`blocked by the SSRF guard (${rule}): ${message}`);
    this.name = "SsrfBlockedError";
    this.rule = rule;
    this.url = url;
    this.detail = detail;
  }
}

/** Why an allowed request failed: the time cap, or a network error. */
export type SsrfFetchCode = "ETIMEDOUT" | "EFETCH";

/** The request was allowed but failed: a network error or the time cap. */
export class SsrfFetchError extends Error {
  readonly code: SsrfFetchCode;
  readonly url: string;
  readonly stage: "connect" | "response" | "body";
  constructor(
    code: SsrfFetchCode,
    stage: "connect" | "response" | "body",
    url: string,
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = "SsrfFetchError";
    this.code = code;
    this.stage = stage;
    this.url = url;
  }
}

/**
 * The system error code (`ENOTFOUND`, `ECONNREFUSED`, …) behind a failed guarded fetch: the first
 * errno code down the cause chain, past the guard's own `EFETCH` wrapper.
 */
export function networkErrorCode(err: unknown): string | undefined {
  let cause: unknown = err;
  for (let i = 0; i < 5 && cause instanceof Error; i++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (typeof code === "string" && code !== "EFETCH") return code;
    cause = cause.cause;
  }
  return undefined;
}

/** How ipaddr.js classifies an address, or `invalid`. */
export function addressRange(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "");
  if (!isIP(bare)) return "invalid";
  return ipaddr.parse(bare).range();
}

/** Whether a literal address may be connected to: only `unicast`, or loopback with the escape hatch. */
export function addressAllowed(address: string, allowLoopback = false): boolean {
  const range = addressRange(address);
  if (range === "unicast") return true;
  return allowLoopback && range === "loopback";
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_DROPPED = ["authorization", "cookie", "proxy-authorization"];

function defaultResolve(hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void): void {
  dnsLookup(hostname, { all: true, family: 0 }, (err, addresses) => callback(err, addresses ?? []));
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class SsrfGuard {
  readonly allowedPorts: readonly number[];
  readonly maxRedirects: number;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly allowLoopback: boolean;
  readonly #resolve: SsrfResolver;
  readonly #log: Pick<Logger, "warn"> | undefined;

  constructor(options: SsrfGuardOptions = {}) {
    this.allowedPorts = options.allowedPorts ?? SSRF_DEFAULT_PORTS;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.allowLoopback = options.allowLoopback === true;
    this.#resolve = options.resolve ?? defaultResolve;
    this.#log = options.log;
    if (this.allowLoopback) this.#warn("SSRF guard created with allowLoopback: loopback and any port are reachable");
  }

  #warn(message: string, extra: Record<string, unknown> = {}): void {
    const text = `${message} (TEST-ONLY escape hatch; must be off in production)`;
    if (this.#log) this.#log.warn({ ssrfEscapeHatch: true, ...extra }, text);
    else process.emitWarning(text, "GantrySsrfEscapeHatch");
  }

  /** Checks a URL's scheme, credentials, port and (literal) host; answers the parsed URL. */
  checkUrl(input: string | URL): URL {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch {
      throw new SsrfBlockedError("url", String(input), "not an absolute URL");
    }
    const href = url.href;
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new SsrfBlockedError("scheme", href, `scheme ${url.protocol} is not allowed (only http and https)`);
    if (url.username || url.password)
      throw new SsrfBlockedError("credentials", href, "a URL must not carry credentials");
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    if (!this.allowLoopback && !this.allowedPorts.includes(port))
      throw new SsrfBlockedError("port", href, `port ${port} is not allowed (${this.allowedPorts.join(", ")})`);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && !addressAllowed(host, this.allowLoopback))
      throw new SsrfBlockedError("address", href, `${host} is not a public address (${addressRange(host)})`);
    if (!host) throw new SsrfBlockedError("url", href, "no host");
    return url;
  }

  /** Resolves a name and refuses it when any address is not allowed. */
  resolveChecked(hostname: string, href: string): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      this.#resolve(hostname, (err, addresses) => {
        if (err) return reject(err);
        const bad = addresses.find((a) => !addressAllowed(a.address, this.allowLoopback));
        if (bad || addresses.length === 0)
          return reject(
            new SsrfBlockedError(
              "address",
              href,
              bad ? `${hostname} does not resolve to a public address` : `${hostname} resolves to no address`,
              `${hostname} resolves to ${bad?.address ?? "no address"}${bad ? ` (${addressRange(bad.address)})` : ""}`,
            ),
          );
        resolve(addresses);
      });
    });
  }

  /** The `lookup` for a socket: resolves, refuses disallowed addresses (for undici's `connect.lookup` or `http.request`). */
  lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string } | number,
    callback: LookupCallback,
  ) => {
    const opts = typeof options === "object" && options !== null ? options : {};
    this.resolveChecked(hostname, hostname).then(
      (list) => {
        const family = typeof opts.family === "number" && opts.family !== 0 ? opts.family : 0;
        const usable = family ? list.filter((a) => a.family === family) : list;
        if (usable.length === 0) {
          const e = new Error(`${hostname}: no IPv${family} address`) as NodeJS.ErrnoException;
          e.code = "ENOTFOUND";
          return callback(e, "");
        }
        if (opts.all) return callback(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err) => callback(err as NodeJS.ErrnoException, ""),
    );
  };

  #pool: Agent | undefined;

  /**
   * The guard's pooled Agent: every new connection checked (names by `lookup`, literals and the
   * peer by the connector), kept alive and reused per origin. Each pooled client remembers its
   * socket's peer, so a request learns the address it was sent to (`SsrfResponse.address`).
   */
  agent(): Agent {
    if (this.#pool) return this.#pool;
    const { buildConnector, guardPool } = undici();
    const base = buildConnector({ lookup: this.lookup } as buildConnector.BuildOptions);
    const connect: buildConnector.connector = (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) && !addressAllowed(host, this.allowLoopback)) {
        callback(
          new SsrfBlockedError("address", `${opts.protocol}//${opts.host}`, `${host} is not a public address`),
          null,
        );
        return;
      }
      base(opts, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error("no socket"), null);
        const peer = (socket as Socket).remoteAddress;
        if (peer && !addressAllowed(peer, this.allowLoopback)) {
          socket.destroy();
          return callback(
            new SsrfBlockedError(
              "address",
              `${opts.protocol}//${opts.host}`,
              `${opts.hostname} is not a public address`,
              `connected to ${peer}`,
            ),
            null,
          );
        }
        callback(null, socket);
      });
    };
    this.#pool = guardPool(connect);
    return this.#pool;
  }

  /**
   * One request's view of the guard's pool (its checked, kept-alive connections); after the request
   * is written, `address` is the peer it went to. For a caller that speaks undici's request API
   * itself, as the browser's filtering proxy does (kit/src/ssrf-proxy.ts).
   */
  dispatcher(): PeerDispatcher {
    return new (undici().PeerDispatcher)(this.agent());
  }

  /** Ends the guard's kept-alive connections (a service's shutdown); a later fetch opens new ones. */
  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.close();
  }

  /** One guarded request, redirects followed by hand and re-checked. */
  async fetch(input: string | URL, req: SsrfRequest = {}): Promise<SsrfResponse> {
    const started = performance.now();
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const maxBytes = req.maxBytes ?? this.maxBytes;
    const timeout = AbortSignal.timeout(timeoutMs);
    // The call this request works for (kit/call-signal) ends it too: its caller gave up.
    const stops = [req.signal, callSignal(), timeout].filter((s): s is AbortSignal => s !== undefined);
    const signal = stops.length === 1 ? timeout : AbortSignal.any(stops);
    const chain: string[] = [];
    let method = (req.method ?? "GET").toUpperCase();
    let body = req.body;
    let headers: Record<string, string> = Object.fromEntries(
      Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
    );
    let url = this.checkUrl(input);
    for (let hop = 0; ; hop++) {
      chain.push(url.href);
      // Origin and path only: a query string may carry a credential (an API key placed in the query).
      if (this.allowLoopback)
        this.#warn("SSRF guard request with allowLoopback", { url: `${url.origin}${url.pathname}` });
      const host = url.hostname.replace(/^\[|\]$/g, "");
      // Early, clear refusal (and DNS failure); the connect-time check is what holds.
      if (!isIP(host))
        await this.resolveChecked(host, url.href).catch((err: unknown) => {
          throw err instanceof SsrfBlockedError
            ? err
            : new SsrfFetchError("EFETCH", "connect", url.href, `${url.href}: ${(err as Error).message}`, err);
        });
      const dispatcher = this.dispatcher();
      let res: Awaited<ReturnType<typeof undiciFetch>>;
      try {
        res = await undici().fetch(url, { method, headers, body, redirect: "manual", signal, dispatcher });
      } catch (err) {
        throw this.#failure(err, timeout, "connect", url.href, timeoutMs);
      }
      if (REDIRECTS.has(res.status) && req.redirect !== "manual") {
        await res.body?.cancel().catch(() => {});
        if (req.redirect === "error")
          throw new SsrfBlockedError("redirect_refused", url.href, `answered ${res.status} and redirects are refused`);
        if (hop >= this.maxRedirects)
          throw new SsrfBlockedError("redirect_limit", url.href, `more than ${this.maxRedirects} redirects`);
        const location = res.headers.get("location");
        let next: URL;
        try {
          next = new URL(location ?? "", url);
          if (!location) throw new Error("none");
        } catch {
          throw new SsrfBlockedError("redirect_location", url.href, `a ${res.status} without a usable Location`);
        }
        next = this.checkUrl(next);
        if (next.origin !== url.origin) {
          headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CROSS_ORIGIN_DROPPED.includes(k)));
        }
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
          if (method !== "HEAD") method = "GET";
          body = undefined;
          delete headers["content-type"];
          delete headers["content-length"];
        }
        url = next;
        continue;
      }
      const { bytes, truncated } = await this.#readCapped(res, maxBytes, timeout, url.href, timeoutMs);
      return {
        status: res.status,
        headers: res.headers,
        url: url.href,
        chain,
        address: dispatcher.address,
        body: bytes,
        truncated,
        elapsedMs: Math.round(performance.now() - started),
        text: () => new TextDecoder().decode(bytes),
      };
    }
  }

  async #readCapped(
    res: Awaited<ReturnType<typeof undiciFetch>>,
    maxBytes: number,
    timeout: AbortSignal,
    href: string,
    timeoutMs: number,
  ): Promise<{ bytes: Uint8Array; truncated: boolean }> {
    if (!res.body) return { bytes: new Uint8Array(0), truncated: false };
    const chunks: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (size + value.byteLength > maxBytes) {
          chunks.push(value.subarray(0, maxBytes - size));
          size = maxBytes;
          truncated = true;
          await reader.cancel().catch(() => {});
          break;
        }
        chunks.push(value);
        size += value.byteLength;
      }
    } catch (err) {
      throw this.#failure(err, timeout, "body", href, timeoutMs);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    return { bytes, truncated };
  }

  #failure(err: unknown, timeout: AbortSignal, stage: "connect" | "body", href: string, timeoutMs: number): Error {
    let cause: unknown = err;
    while (cause instanceof Error && !(cause instanceof SsrfBlockedError) && cause.cause) cause = cause.cause;
    if (cause instanceof SsrfBlockedError) return cause;
    if (timeout.aborted)
      return new SsrfFetchError("ETIMEDOUT", stage, href, `no complete response within ${timeoutMs} ms`, err);
    const message = cause instanceof Error ? cause.message : String(cause);
    return new SsrfFetchError("EFETCH", stage === "connect" ? "connect" : "body", href, `${href}: ${message}`, err);
  }
}
