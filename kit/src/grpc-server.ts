/**
 * @module kit/grpc-server
 * The one gRPC server of every area service: unary gRPC over HTTP/2 on `node:http2`, serving
 * grpc-js service definitions and handlers (`(call, callback)`, as `@grpc/grpc-js` has them) so
 * that handlers and contracts are unchanged. grpc-js's server spent nearly twice the CPU on a
 * unary call that this one does (docs/benchmarks.md, *Figures the source refers to*, *The kit's own
 * gRPC client and server*); every hop pays it.
 *
 * Every server also serves `gantry.rpc.v1.Multiplex/Calls`, the stream the kit's client carries its
 * unary calls on (kit/grpc-multiplex): the same routes and handlers, a message per call instead of
 * an HTTP/2 stream per call. On shutdown those streams stop taking calls and end once the calls
 * they took are answered.
 *
 * Every call, plain or on the stream, is run with its caller's metadata and an `AbortSignal`
 * (`ServerCall`, kit/grpc-multiplex): the server answers DEADLINE_EXCEEDED itself when the deadline
 * (`grpc-timeout`, or the Call's `deadline_ms`) passes, and aborts the signal then, or when the
 * client resets the stream, cancels the call or goes away; the handler stops its work on it.
 *
 * Every call of a route that is not open (all but health) is authenticated before it is decoded:
 * its `gantry-call-auth` token must prove its caller (kit/call-auth), or it is answered
 * UNAUTHENTICATED. With `tls` (kit/grpc-tls) the server speaks only TLS and takes only clients
 * presenting a certificate of its CA.
 *
 * What it does not do, because nothing here uses it: other streaming methods (answered
 * UNIMPLEMENTED), compression (a compressed request is refused). Any gRPC client can call it:
 * kubelet's gRPC probe (without TLS), grpcurl, grpc-js, grpc-go.
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type * as grpc from "@grpc/grpc-js";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { ERROR_TRAILER, type GrpcMethod, type GrpcServiceName } from "./grpc-client.ts";
import type { GrpcServices } from "./generated/grpc.ts";
import { frameMessage, MAX_MESSAGE_BYTES, unframeMessage } from "./grpc-frame.ts";
import {
  multiplexMethod,
  runRoute,
  type ServerCall,
  serveCallStream,
  type StatusParts,
  type UnaryRoute,
} from "./grpc-multiplex.ts";

/**
 * The handlers of service `S` (kit/src/generated/grpc.ts), one per method: each reads its method's
 * request as decoded and answers its response message, so `impl` for `addService` is checked
 * against the .proto.
 */
export type GrpcHandlers<S extends GrpcServiceName> = {
  [M in GrpcMethod<S>]: (
    call: ServerCall<GrpcServices[S][M] extends { req: infer R } ? R : never>,
    callback: grpc.sendUnaryData<GrpcServices[S][M] extends { resInit: infer R } ? R : never>,
  ) => void;
};
import { callerGone, deadlinePassed } from "./call-signal.ts";
import type { CallVerifier } from "./call-auth.ts";
import { type GrpcTls, grpcTls } from "./grpc-tls.ts";
import { type Deadline, DeadlineSweep } from "./deadline-sweep.ts";

const TIMEOUT_UNITS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 };

/** `grpc-timeout` (gRPC over HTTP/2: up to 8 digits and a unit) in ms; undefined when absent or malformed. */
export function parseGrpcTimeout(value: string | string[] | undefined): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{1,8})([HMSmun])$/.exec(value);
  if (!m) return undefined;
  return Math.max(1, Math.ceil(Number(m[1]) * TIMEOUT_UNITS[m[2]]));
}

/** Headers that are the protocol's, not the caller's metadata. */
const RESERVED = new Set(["content-type", "te", "user-agent", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding"]);

/** A plain call's custom headers: what the Call message carries as `metadata` on the stream. */
function metadataOf(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const name in headers) {
    if (name[0] === ":" || RESERVED.has(name)) continue;
    const value = headers[name];
    if (typeof value === "string") metadata[name] = value;
  }
  return metadata;
}

type UnaryHandler = UnaryRoute["handler"];

/** Headers of a response that carries a status and no message ("Trailers-Only"). */
function statusOnly(code: number, message: string, extra: http2.OutgoingHttpHeaders = {}): http2.OutgoingHttpHeaders {
  return {
    ":status": 200,
    "content-type": "application/grpc",
    "grpc-status": String(code),
    "grpc-message": encodeURIComponent(message),
    ...extra,
  };
}

/** A handler's error (`toGrpcError`'s shape): its status, message and GantryError trailer. */
function statusParts(err: unknown): StatusParts {
  const e = (err ?? {}) as Partial<grpc.StatusObject>;
  const code = typeof e.code === "number" && e.code !== GrpcStatus.OK ? e.code : GrpcStatus.UNKNOWN;
  const trailer = e.metadata?.get(ERROR_TRAILER)[0];
  return { code, details: e.details ?? "", ...(Buffer.isBuffer(trailer) ? { trailer } : {}) };
}

/** The same as status headers (Trailers-Only); binary metadata goes base64. */
function errorHeaders(err: unknown): http2.OutgoingHttpHeaders {
  const { code, details, trailer } = statusParts(err);
  return statusOnly(code, details, trailer ? { [ERROR_TRAILER]: trailer.toString("base64") } : {});
}

/** Streams one client connection may have open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS). */
export const MAX_STREAMS = 256;
/** Bytes of plain-call requests one connection may have in flight (each call at most 16 MiB). */
export const MAX_SESSION_REQUEST_BYTES = 64 * 1024 * 1024;

export class RpcServer {
  private readonly routes = new Map<string, UnaryRoute>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  /** Bytes of plain-call requests each connection has sent and not yet seen answered. */
  private readonly sessionBytes = new WeakMap<http2.Http2Session, number>();
  /** Open Calls streams (kit/grpc-multiplex), drained on shutdown. */
  private readonly callStreams = new Set<() => void>();
  private draining = false;
  private readonly server: http2.Http2Server | http2.Http2SecureServer;
  private readonly auth?: CallVerifier;
  /** Plain calls' deadlines, under one timer (kit/deadline-sweep); a Calls stream has its own. */
  private readonly deadlines = new DeadlineSweep();

  /**
   * @param opts.auth checks every call of a route not added as open; without it calls are taken
   *   unsigned (GANTRY_CALL_AUTH=off, and the kit's own tests of the transport)
   * @param opts.tls mutual TLS (default: the process's, kit/grpc-tls `useGrpcTls`)
   */
  constructor(opts: { auth?: CallVerifier; tls?: GrpcTls } = {}) {
    this.auth = opts.auth;
    const tls = opts.tls ?? grpcTls();
    // A client may open at most MAX_STREAMS streams at once (a plain call is one, each Calls stream
    // one); each plain call holds at most 16 MiB, and a connection's plain calls together at most
    // MAX_SESSION_REQUEST_BYTES.
    const limits = { maxSessionMemory: 64, settings: { maxConcurrentStreams: MAX_STREAMS } };
    this.server = tls
      ? http2.createSecureServer({
          ...limits,
          ...tls,
          requestCert: true,
          rejectUnauthorized: true,
          minVersion: "TLSv1.3",
        })
      : http2.createServer(limits);
    this.server.on("session", (session) => {
      this.sessions.add(session);
      session.on("close", () => this.sessions.delete(session));
      session.on("error", () => {});
    });
    this.server.on("stream", (stream, headers) => this.serve(stream, headers));
  }

  /**
   * Serves the unary methods of `service` with `impl` (keyed by method name, as for grpc-js).
   * `open`: its calls need no token (health, which probes call).
   */
  addService(
    service: grpc.ServiceDefinition,
    impl: grpc.UntypedServiceImplementation | Record<string, (...args: never[]) => unknown>,
    { open = false }: { open?: boolean } = {},
  ): void {
    for (const [name, method] of Object.entries(service)) {
      const handler = impl[name] as unknown as UnaryHandler | undefined;
      if (!handler || method.requestStream || method.responseStream) continue;
      this.routes.set(method.path, {
        method: method as UnaryRoute["method"],
        handler,
        ...(open || !this.auth ? {} : { auth: this.auth }),
      });
    }
  }

  private serve(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    stream.on("error", () => {});
    const route = this.routes.get(String(headers[":path"]));
    const type = String(headers["content-type"] ?? "");
    if (!type.startsWith("application/grpc")) {
      stream.respond({ ":status": 415 }, { endStream: true });
      return;
    }
    if (String(headers[":path"]) === multiplexMethod().path) {
      if (this.draining) {
        // Taken no call: the client sends them again on another connection.
        stream.respond(statusOnly(GrpcStatus.OK, "shutting down"), { endStream: true });
        return;
      }
      const { drain, closed } = serveCallStream(stream, this.routes, statusParts);
      this.callStreams.add(drain);
      void closed.then(() => this.callStreams.delete(drain));
      return;
    }
    if (!route) {
      stream.respond(statusOnly(GrpcStatus.UNIMPLEMENTED, `unknown method ${headers[":path"]}`), { endStream: true });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const session = stream.session;
    const release = () => {
      if (session) this.sessionBytes.set(session, (this.sessionBytes.get(session) ?? 0) - size);
    };
    stream.once("close", release);
    const refuse = (message: string) => {
      // Answered at once and nothing more read: a sender that goes on costs neither memory nor time.
      stream.removeAllListeners("data");
      chunks.length = 0;
      this.fail(stream, GrpcStatus.RESOURCE_EXHAUSTED, message);
      stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length;
      const held = (session && this.sessionBytes.get(session)) || 0;
      if (session) this.sessionBytes.set(session, held + chunk.length);
      if (size > MAX_MESSAGE_BYTES + 5) refuse(`request larger than ${MAX_MESSAGE_BYTES} bytes`);
      else if (held + chunk.length > MAX_SESSION_REQUEST_BYTES)
        refuse(`more than ${MAX_SESSION_REQUEST_BYTES} bytes of requests in flight on this connection`);
      else chunks.push(chunk);
    });
    stream.on("end", () => {
      if (stream.closed) return;
      const message = unframeMessage(chunks);
      if (message === "malformed") {
        this.fail(stream, GrpcStatus.INTERNAL, "expected exactly one length-prefixed message");
        return;
      }
      if (message === "compressed") {
        this.fail(stream, GrpcStatus.UNIMPLEMENTED, "compressed messages are not accepted");
        return;
      }
      const controller = new AbortController();
      let answered = false;
      let timer: Deadline | undefined;
      const timeoutMs = parseGrpcTimeout(headers["grpc-timeout"]);
      const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
      if (timeoutMs !== undefined)
        timer = this.deadlines.after(timeoutMs, () => {
          // Answered now, whatever the handler does with the signal: the client stops waiting anyway.
          answered = true;
          controller.abort(deadlinePassed(String(headers[":path"])));
          if (!stream.closed && !stream.destroyed)
            stream.respond(statusOnly(GrpcStatus.DEADLINE_EXCEEDED, "deadline exceeded"), { endStream: true });
        });
      // A client that gave up resets the stream: nobody will read the answer.
      stream.once("close", () => {
        this.deadlines.clear(timer);
        if (!answered) controller.abort(callerGone());
      });
      runRoute(
        route,
        message,
        (err, value) => {
          if (answered) return;
          answered = true;
          this.deadlines.clear(timer);
          if (stream.closed || stream.destroyed) return;
          if (err) {
            stream.respond(errorHeaders(err), { endStream: true });
            return;
          }
          const frame = frameMessage(route.method.responseSerialize(value));
          stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
          stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
          stream.end(frame);
        },
        {
          metadata: metadataOf(headers),
          signal: controller.signal,
          deadline,
        },
      );
    });
  }

  private fail(stream: http2.ServerHttp2Stream, code: number, message: string): void {
    if (!stream.headersSent) stream.respond(statusOnly(code, message), { endStream: true });
    else stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  }

  /** Listens on `host:port` (0: any free port) and resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  /**
   * Stops taking connections and tells clients to go elsewhere (GOAWAY); calls in flight finish.
   * After `graceMs` what is left is cut off.
   */
  shutdown(graceMs = 5_000): Promise<void> {
    return new Promise((resolve) => {
      const force = setTimeout(() => {
        for (const s of this.sessions) s.destroy();
      }, graceMs);
      force.unref();
      this.server.close(() => {
        clearTimeout(force);
        resolve();
      });
      this.draining = true;
      for (const drain of this.callStreams) drain();
      for (const s of this.sessions) s.close();
    });
  }
}
