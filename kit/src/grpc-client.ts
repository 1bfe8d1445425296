/**
 * @module kit/grpc-client
 * The one gRPC client every Gantry process uses for unary calls: gRPC over HTTP/2 (any gRPC
 * server answers it; ours are kit/grpc-server), written on `node:http2` because grpc-js's client
 * spent about twice the CPU per call that the hop's HTTP/2 work costs: its interceptor, filter,
 * resolver and retry layers run on every call (docs/benchmarks.md, *Figures the source refers to*,
 * *The kit's own gRPC client and server*). What we
 * need of them is kept: deadlines (`grpc-timeout` and a local timer), cancellation (a caller's
 * `AbortSignal` fails the call at once and tells the server to stop it), call metadata (W3C
 * `traceparent` when tracing is on: kit/telemetry), status and trailers, reconnection with backoff,
 * keepalive pings, and load balancing.
 *
 * **Replicas.** An address is `host:port`, a comma-separated list of them, or a DNS name whose
 * lookup returns several addresses (a Kubernetes headless Service: every ready pod). Calls rotate
 * over the replicas (round robin), a replica that refused a connection sits out a backoff, and a
 * call that could not reach its replica (nothing was sent) is tried on the next one. Names are
 * looked up again every 30 s and after a failed connection, so pods that come and go are followed.
 * One HTTP/2 connection per replica carries every concurrent call to it.
 *
 * **One stream for many calls.** On that connection, calls go as messages on one long-lived
 * `gantry.rpc.v1.Multiplex/Calls` stream (kit/grpc-multiplex), which costs about a seventh of
 * opening a stream per call. A request over 64 KiB, or a server without that stream (it answers
 * UNIMPLEMENTED, as grpc-js servers do), gets a plain unary call. A call a shutting-down server
 * did not take is sent again, on a new connection or to another replica.
 *
 * **Who calls.** A client made with a `signer` (kit/call-auth) puts a token proving its process,
 * bound to the method, the request's bytes and the call's deadline, on every call; with `tls`
 * (kit/grpc-tls; by default the process's) it connects over TLS with its certificate.
 */
import dns from "node:dns/promises";
import http2 from "node:http2";
import net from "node:net";
import type * as grpc from "@grpc/grpc-js";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { frameMessage, MAX_MESSAGE_BYTES, unframeMessage } from "./grpc-frame.ts";
import { CallStream, MULTIPLEX_MAX_REQUEST_BYTES } from "./grpc-multiplex.ts";
import { codeFromGrpcStatus, GantryError, isErrorCode, type WireError } from "./errors.ts";
import { callerGone } from "./call-signal.ts";
import { CALL_AUTH_HEADER, type CallSigner, tokenExpiry } from "./call-auth.ts";
import { DeadlineSweep } from "./deadline-sweep.ts";
import { type GrpcTls, grpcTls } from "./grpc-tls.ts";
import { telemetryOn, tracedClientCall } from "./telemetry.ts";
import type { GrpcServices } from "./generated/grpc.ts";

/** A gRPC service by full name (`gantry.trust.v1.PermitGate`), as kit/src/generated/grpc.ts lists them. */
export type GrpcServiceName = keyof GrpcServices;
/** The unary methods of service `S`. */
export type GrpcMethod<S extends GrpcServiceName> = keyof GrpcServices[S] & string;
type MethodTypes<S extends GrpcServiceName, M extends GrpcMethod<S>> = GrpcServices[S][M];
/** What a client sends to `S/M` (every field optional, as proto3 allows). */
export type GrpcRequest<S extends GrpcServiceName, M extends GrpcMethod<S>> =
  MethodTypes<S, M> extends { reqInit: infer R } ? R : never;
/** What a client reads back from `S/M` (defaults filled in). */
export type GrpcResponse<S extends GrpcServiceName, M extends GrpcMethod<S>> =
  MethodTypes<S, M> extends { res: infer R } ? R : never;

/** The trailer a Gantry server puts a `GantryError` in (JSON; binary metadata is base64 on the wire). */
export const ERROR_TRAILER = "gantry-error-bin";

const RESOLVE_EVERY_MS = 30_000;
const PING_EVERY_MS = 30_000;
const PING_TIMEOUT_MS = 10_000;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 2_000;
/**
 * A connection not open by then is given up. The address of a pod that is gone answers nothing
 * (no host replies, so no refusal comes back): without this, calls queued on it would wait out
 * their whole deadline while other replicas are there. Given up, they go to the next replica.
 */
const CONNECT_TIMEOUT_MS = 3_000;

export interface CallOptions {
  /** Milliseconds the call may take, end to end (default 30 s). Sent along: the server enforces it too. */
  deadlineMs?: number;
  /**
   * The caller gave up: the call fails at once with the signal's reason and the server is told to
   * stop it (a cancel on the stream, a reset plain stream).
   */
  signal?: AbortSignal;
  /** Call metadata: custom headers on a plain call, the Call's `metadata` on the stream. */
  metadata?: Record<string, string>;
}

interface Target {
  /** `host:port` or a socket path, for errors and for comparing lookups. */
  key: string;
  authority: string;
  socketPath?: string;
  /** The name a replica's certificate is checked against under TLS (the name it was looked up by). */
  servername?: string;
}

/** What a client needs besides its address. */
export interface ClientOptions {
  /** Signs every call as this process (kit/call-auth); the callee refuses unsigned calls. */
  signer?: CallSigner;
  /** Mutual TLS (kit/grpc-tls); default: the process's. */
  tls?: GrpcTls;
}

/** One replica: a lazily opened HTTP/2 connection, reopened after it closes. */
class Replica {
  session?: http2.ClientHttp2Session;
  /** Until when a replica that refused a connection is passed over. */
  restUntil = 0;
  private backoffMs = BACKOFF_MIN_MS;
  /** Calls in flight per connection (a dropped connection's calls still finish on it). */
  private readonly active = new WeakMap<http2.ClientHttp2Session, number>();
  private readonly opened = new WeakSet<http2.ClientHttp2Session>();
  /** Each connection's Calls stream (kit/grpc-multiplex), opened on its first call. */
  private readonly streams = new WeakMap<http2.ClientHttp2Session, CallStream>();
  /** Set when this connection's server has no Calls stream: its calls go as plain unary calls. */
  private plainOnly = false;

  readonly target: Target;
  private readonly onFailure: () => void;
  private readonly tls?: GrpcTls;

  constructor(target: Target, onFailure: () => void, tls?: GrpcTls) {
    this.target = target;
    this.onFailure = onFailure;
    this.tls = tls;
  }

  connect(): http2.ClientHttp2Session {
    const live = this.session;
    if (live && !live.closed && !live.destroyed) return live;
    const { authority, socketPath, servername } = this.target;
    const tls = this.tls;
    const session = http2.connect(tls ? authority.replace(/^http:/, "https:") : authority, {
      ...(socketPath ? { createConnection: () => net.connect(socketPath) } : {}),
      ...(tls
        ? { ...tls, minVersion: "TLSv1.3" as const, ...(servername && !net.isIP(servername) ? { servername } : {}) }
        : {}),
      settings: { enablePush: false },
      maxSessionMemory: 64,
    });
    this.session = session;
    session.unref();
    const connectTimer = setTimeout(
      () => session.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    ).unref();
    session.once("close", () => clearTimeout(connectTimer));
    session.once("connect", () => {
      clearTimeout(connectTimer);
      this.opened.add(session);
      this.plainOnly = false; // a new connection may reach a newer server
      this.backoffMs = BACKOFF_MIN_MS;
      this.restUntil = 0;
      // A replica that vanished without closing its connection (a lost node) is noticed by a ping,
      // not by every call waiting out its deadline.
      // Tied to this connection, not to the replica: a connection replaced before its "close" still
      // stops its own pings.
      const pinger = setInterval(() => {
        if (session.closed || session.destroyed) return; // closing: its calls finish, no pings
        const timer = setTimeout(() => session.destroy(), PING_TIMEOUT_MS).unref();
        session.ping((err) => {
          clearTimeout(timer);
          if (err) session.destroy();
        });
      }, PING_EVERY_MS).unref();
      session.once("close", () => clearInterval(pinger));
    });
    session.on("error", () => {
      if (this.opened.has(session)) return; // an open connection that broke: "close" drops it
      this.restUntil = Date.now() + this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
      this.onFailure();
    });
    // A server that is shutting down sends GOAWAY: calls in flight finish, new ones open a new connection.
    session.on("goaway", () => this.drop(session));
    session.on("close", () => this.drop(session));
    return session;
  }

  /** The Calls stream on `session`, opened if need be; none when the server has none. */
  callStream(session: http2.ClientHttp2Session): CallStream | undefined {
    if (this.plainOnly) return undefined;
    const open = this.streams.get(session);
    if (open?.open) return open;
    try {
      const fresh = new CallStream(session);
      this.streams.set(session, fresh);
      return fresh;
    } catch {
      return undefined; // the connection is closing: the plain call reports it
    }
  }

  /** Its server answered that it has no Calls stream. */
  noCallStream(): void {
    this.plainOnly = true;
  }

  /** Whether `session` ever connected (if not, nothing sent on it reached the server). */
  reached(session: http2.ClientHttp2Session): boolean {
    return this.opened.has(session);
  }

  /** Keeps the process alive only while a call is in flight, as grpc-js does. */
  hold(session: http2.ClientHttp2Session): () => void {
    const n = this.active.get(session) ?? 0;
    this.active.set(session, n + 1);
    if (n === 0) session.ref();
    return () => {
      const left = (this.active.get(session) ?? 1) - 1;
      this.active.set(session, left);
      if (left === 0 && !session.destroyed) session.unref();
    };
  }

  private drop(session: http2.ClientHttp2Session): void {
    if (this.session !== session) return;
    this.session = undefined;
  }

  close(): void {
    if (this.session) this.streams.get(this.session)?.end();
    this.session?.close();
    this.session = undefined;
  }
}

function parseTarget(entry: string): { host: string; port: number } | Target {
  if (entry.startsWith("unix:")) {
    const socketPath = entry.replace(/^unix:(\/\/)?/, "");
    return { key: entry, authority: "http://localhost", socketPath };
  }
  const bare = entry.replace(/^dns:\/\/\/?/, "");
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(bare);
  if (!m) throw new Error(`not a gRPC address: "${entry}" (expected host:port, a list of them, or unix:/path)`);
  return { host: m[1] ?? m[2], port: Number(m[3]) };
}

function ipTarget(ip: string, port: number, servername?: string): Target {
  const host = net.isIPv6(ip) ? `[${ip}]` : ip;
  return { key: `${host}:${port}`, authority: `http://${host}:${port}`, ...(servername ? { servername } : {}) };
}

/**
 * A client of service `S`: `unary("Method", request)` takes only `S`'s methods, and the request and
 * response types are that method's (kit/src/generated/grpc.ts). The types cost nothing at run time.
 */
export class RpcClient<S extends GrpcServiceName> {
  private replicas: Replica[] = [];
  private next = 0;
  private readonly names: Array<{ host: string; port: number }> = [];
  /** Targets given as addresses (not names): never dropped by a lookup. */
  private readonly fixedKeys = new Set<string>();
  private resolvedAt = 0;
  private resolving?: Promise<void>;
  private closed = false;
  private readonly methods: grpc.ServiceDefinition;
  private readonly signer?: CallSigner;
  private readonly tls?: GrpcTls;
  /** Its calls' deadlines, under one timer (kit/deadline-sweep). */
  private readonly deadlines = new DeadlineSweep();

  /**
   * @param service the generated service (kit `lookupService`), for method paths and codecs
   * @param addr `host:port`, `a:1,b:2`, a name with several DNS records, or `unix:/path`
   */
  constructor(service: grpc.ServiceClientConstructor, addr: string, opts: ClientOptions = {}) {
    this.methods = service.service;
    this.signer = opts.signer;
    this.tls = opts.tls ?? grpcTls();
    const targets: Target[] = [];
    for (const entry of addr
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const t = parseTarget(entry);
      if ("key" in t) {
        targets.push(t);
        this.fixedKeys.add(t.key);
      } else if (net.isIP(t.host) || t.host === "localhost") {
        const target = ipTarget(t.host, t.port);
        targets.push(target);
        this.fixedKeys.add(target.key);
      } else {
        // Until the first lookup answers, the name itself is the one replica (the OS resolves it).
        this.names.push(t);
        targets.push({ key: `${t.host}:${t.port}`, authority: `http://${t.host}:${t.port}`, servername: t.host });
      }
    }
    if (targets.length === 0) throw new Error(`no gRPC address given ("${addr}")`);
    this.replicas = targets.map((t) => new Replica(t, () => this.refresh(1_000), this.tls));
    this.refresh(0);
  }

  /** Looks the names up again when the last lookup is older than `minAgeMs`. */
  private refresh(minAgeMs: number): void {
    if (this.names.length === 0 || this.resolving || this.closed) return;
    if (Date.now() - this.resolvedAt < minAgeMs) return;
    this.resolvedAt = Date.now();
    this.resolving = Promise.all(
      this.names.map(async ({ host, port }) =>
        (await dns.lookup(host, { all: true })).map((a) => ipTarget(a.address, port, host)),
      ),
    )
      .then((lists) => {
        // Replicas given as addresses stay; those a name gave (and the name itself, before its
        // first answer) are replaced by what the names answer now: a pod that is gone leaves.
        const fixed = this.replicas.filter((r) => this.fixedKeys.has(r.target.key));
        const wanted = [...new Map(lists.flat().map((t) => [t.key, t])).values()];
        if (wanted.length === 0 || this.closed) return;
        const keep = new Map(this.replicas.map((r) => [r.target.key, r]));
        const next = [
          ...fixed,
          ...wanted.map((t) => keep.get(t.key) ?? new Replica(t, () => this.refresh(1_000), this.tls)),
        ];
        for (const r of this.replicas) if (!next.includes(r)) r.close();
        this.replicas = [...new Set(next)];
      })
      .catch(() => {
        // A failed lookup keeps the replicas we have; the next failure or period tries again.
      })
      .finally(() => {
        this.resolving = undefined;
      });
  }

  /** The next replica in turn, passing over those resting after a refused connection (unless all are). */
  private pick(exclude?: Replica): Replica {
    if (Date.now() - this.resolvedAt >= RESOLVE_EVERY_MS) this.refresh(RESOLVE_EVERY_MS);
    const n = this.replicas.length;
    const now = Date.now();
    for (let i = 0; i < n; i++) {
      const r = this.replicas[this.next++ % n];
      if (r !== exclude && r.restUntil <= now) return r;
    }
    return this.replicas[this.next++ % n];
  }

  /** One unary call; a failure is a `GantryError` (the server's own, or one for the transport). */
  unary<M extends GrpcMethod<S>>(
    method: M,
    request: GrpcRequest<S, M>,
    opts: CallOptions = {},
  ): Promise<GrpcResponse<S, M>> {
    if (!telemetryOn()) return this.send(method, request, opts, opts.metadata);
    const path = this.methods[method]?.path ?? method;
    return tracedClientCall(path, opts.metadata, (metadata) =>
      this.send<GrpcResponse<S, M>>(method, request, opts, metadata),
    );
  }

  private send<Res>(
    method: string,
    request: unknown,
    opts: CallOptions,
    metadata: Record<string, string> | undefined,
  ): Promise<Res> {
    const def = this.methods[method];
    if (!def) return Promise.reject(new TypeError(`no method ${method} in this service`));
    if (this.closed) return Promise.reject(new GantryError("unavailable", "the client is closed"));
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const message = def.requestSerialize(request);
    const deadlineMs = Math.max(1, Math.ceil(opts.deadlineMs ?? 30_000));
    const deadline = Date.now() + deadlineMs;
    const sent = this.signer
      ? { ...metadata, [CALL_AUTH_HEADER]: this.signer.sign(def.path, message, tokenExpiry(deadlineMs)) }
      : metadata;
    return new Promise<Res>((resolvePromise, rejectPromise) => {
      // The attempt in flight, told to stop when the caller gives up.
      let stop: (() => void) | undefined;
      const onAbort = () => {
        stop?.();
        rejectPromise(abortReason(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const resolve = (value: Res) => {
        signal?.removeEventListener("abort", onAbort);
        resolvePromise(value);
      };
      const reject = (err: unknown) => {
        signal?.removeEventListener("abort", onAbort);
        rejectPromise(err);
      };
      const decode = (response: Buffer) => {
        try {
          resolve(def.responseDeserialize(response) as Res);
        } catch (err) {
          reject(new GantryError("internal", `${method}: undecodable response`, { cause: err }));
        }
      };
      const timeout = () => new GantryError("timeout", `${method} did not answer within ${deadlineMs} ms`);
      const failed = (replica: Replica, why: string) =>
        new GantryError("unavailable", `${method} to ${replica.target.key}: ${why}`);
      // Nothing came back. If the connection never opened, nothing was sent: another replica may take it.
      let lookedAgain = false;
      const lost = (
        replica: Replica,
        session: http2.ClientHttp2Session,
        triesLeft: number,
        resends: number,
        why: string,
      ) => {
        const unreached = !replica.reached(session);
        if (unreached && triesLeft > 0 && this.replicas.length > 1) attempt(this.pick(replica), triesLeft - 1, resends);
        else if (unreached && !lookedAgain && this.names.length > 0 && deadline - Date.now() > 1) {
          // No replica took the connection, and the names may answer otherwise by now: a pod that
          // became ready after the last lookup (a client made while its service was starting knew
          // none), or one that is gone. Look them up once more, then try what they answer.
          lookedAgain = true;
          const left = new Promise<void>((r) => setTimeout(r, deadline - Date.now()).unref());
          void Promise.race([this.lookUpNow(), left]).then(() => {
            if (Date.now() >= deadline) reject(timeout());
            else attempt(this.pick(), this.replicas.length - 1, resends);
          });
        } else reject(failed(replica, why));
      };

      // Over the connection's Calls stream (kit/grpc-multiplex): a message, not a stream of its own.
      const viaStream = (
        replica: Replica,
        session: http2.ClientHttp2Session,
        calls: CallStream,
        triesLeft: number,
        resends: number,
      ) => {
        const release = replica.hold(session);
        let id = 0;
        const left = deadline - Date.now();
        const timer = this.deadlines.at(deadline, () => {
          calls.cancel(id);
          release();
          reject(timeout());
        });
        stop = () => {
          this.deadlines.clear(timer);
          calls.cancel(id);
          release();
        };
        id = calls.send(
          def.path,
          message,
          (outcome) => {
            stop = undefined;
            this.deadlines.clear(timer);
            release();
            if ("reply" in outcome) {
              const { status, response, message: details, error } = outcome.reply;
              if (status === 0) decode(response);
              else reject(statusError(status, details, error.length > 0 ? error : undefined));
              return;
            }
            if ("notRun" in outcome) {
              // Not run: the server has no Calls stream (sent again as a plain call) or is going away
              // (sent again, on a new connection or to another replica).
              if (outcome.unimplemented) replica.noCallStream();
              if (resends > 0) attempt(outcome.unimplemented ? replica : this.pick(), triesLeft, resends - 1);
              else reject(failed(replica, "the server kept closing"));
              return;
            }
            lost(replica, session, triesLeft, resends, "the connection failed");
          },
          { deadlineMs: Math.max(1, left), metadata: sent },
        );
      };

      const attempt = (replica: Replica, triesLeft: number, resends = 3) => {
        if (signal?.aborted) return; // the caller gave up while this call looked for a replica
        const session = replica.connect();
        const calls = message.length <= MULTIPLEX_MAX_REQUEST_BYTES ? replica.callStream(session) : undefined;
        if (calls) {
          viaStream(replica, session, calls, triesLeft, resends);
          return;
        }
        const release = replica.hold(session);
        const left = deadline - Date.now();
        let stream: http2.ClientHttp2Stream;
        try {
          stream = session.request(
            {
              ":method": "POST",
              ":path": def.path,
              "content-type": "application/grpc",
              te: "trailers",
              "grpc-timeout": `${Math.max(1, left)}m`,
              ...sent,
            },
            { endStream: false },
          );
        } catch (err) {
          release();
          reject(new GantryError("unavailable", `cannot start a call to ${replica.target.key}`, { cause: err }));
          return;
        }
        let status: string | undefined;
        let details = "";
        let errorTrailer: string | undefined;
        let httpStatus = 0;
        let timedOut = false;
        let tooLarge = false;
        let size = 0;
        const chunks: Buffer[] = [];
        const readStatus = (h: http2.IncomingHttpHeaders) => {
          if (h["grpc-status"] === undefined) return;
          status = String(h["grpc-status"]);
          details = String(h["grpc-message"] ?? "");
          const bin = h[ERROR_TRAILER];
          errorTrailer = Array.isArray(bin) ? bin[0] : bin;
        };
        const timer = this.deadlines.at(deadline, () => {
          timedOut = true;
          stream.close(http2.constants.NGHTTP2_CANCEL);
        });
        // A reset stream is how a plain call's server learns that its caller gave up.
        stop = () => stream.close(http2.constants.NGHTTP2_CANCEL);
        stream.on("response", (h) => {
          httpStatus = Number(h[":status"]);
          readStatus(h); // trailers-only: an error answered without a message
        });
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_MESSAGE_BYTES + 5) chunks.push(chunk);
          else if (!tooLarge) {
            tooLarge = true;
            stream.close(http2.constants.NGHTTP2_CANCEL);
          }
        });
        stream.on("trailers", readStatus);
        stream.on("error", () => {
          // Reported on "close", which always follows.
        });
        stream.on("close", () => {
          stop = undefined;
          this.deadlines.clear(timer);
          release();
          if (status === "0") {
            const response = unframeMessage(chunks);
            if (typeof response === "string")
              reject(new GantryError("internal", `${method}: ${response} response message`));
            else decode(response);
            return;
          }
          if (status !== undefined) {
            reject(statusError(Number(status), decodeMessage(details), errorTrailer));
            return;
          }
          if (tooLarge) {
            reject(new GantryError("internal", `${method}: response larger than ${MAX_MESSAGE_BYTES} bytes`));
            return;
          }
          if (timedOut) {
            reject(timeout());
            return;
          }
          lost(
            replica,
            session,
            triesLeft,
            resends,
            httpStatus && httpStatus !== 200 ? `HTTP ${httpStatus}` : "the connection failed",
          );
        });
        stream.end(frameMessage(message));
      };
      attempt(this.pick(), this.replicas.length - 1);
    });
  }

  /** The replicas calls currently rotate over (`host:port`), for tests and diagnostics. */
  get targets(): string[] {
    return this.replicas.map((r) => r.target.key);
  }

  /** Resolves once pending name lookups have answered (tests). */
  async settled(): Promise<void> {
    await this.resolving;
  }

  /** Looks the names up now (or joins the lookup under way), settling when they have answered. */
  private lookUpNow(): Promise<void> {
    this.refresh(0);
    return this.resolving ?? Promise.resolve();
  }

  close(): void {
    this.closed = true;
    for (const r of this.replicas) r.close();
  }
}

/** Why a call ended because its caller gave up: the signal's own reason when it is a GantryError. */
function abortReason(signal: AbortSignal): GantryError {
  return signal.reason instanceof GantryError ? signal.reason : callerGone();
}

/** grpc-message is percent-encoded (gRPC over HTTP/2 spec). */
function decodeMessage(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * A non-OK status as a `GantryError`: the server's own when it sent one, else by the gRPC code. A
 * bare UNAUTHENTICATED is a refused call token (kit/call-auth): the deployment's keys disagree,
 * which is no fault of whoever the caller acts for, so it is `internal` (a sanitized 500 at the
 * gateway), never a 401 for an API key that is fine.
 */
export function statusError(grpcCode: number, details: string, errorTrailer?: string | Buffer): GantryError {
  if (errorTrailer !== undefined) {
    try {
      const raw = typeof errorTrailer === "string" ? Buffer.from(errorTrailer, "base64") : errorTrailer;
      const wire = JSON.parse(raw.toString("utf8")) as WireError;
      if (isErrorCode(wire.code)) {
        return new GantryError(wire.code, wire.message, {
          reason: wire.reason,
          details: wire.details,
          retryAfterMs: wire.retryAfterMs,
        });
      }
    } catch {
      // fall through: judged by its status alone
    }
  }
  if (grpcCode === GrpcStatus.UNAUTHENTICATED)
    return new GantryError("internal", `the callee refused the call (UNAUTHENTICATED): ${details}`);
  return new GantryError(codeFromGrpcStatus(grpcCode), details || `gRPC status ${grpcCode}`);
}
