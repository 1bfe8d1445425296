/**
 * @module kit/grpc-multiplex
 * Both ends of `gantry.rpc.v1.Multiplex/Calls` (proto/gantry/rpc/v1/multiplex.proto): unary calls
 * carried as messages over one long-lived stream per connection. Opening and closing an HTTP/2
 * stream is most of what a unary call costs on node:http2 (HPACK, a stream object and its
 * listeners on both sides); a message on an open stream costs about a seventh of it
 * (docs/benchmarks.md, *Findings, fifth pass*). The client (kit/grpc-client) decides per call which
 * way it goes; the server (kit/grpc-server) runs the same handlers either way.
 */
import http2 from "node:http2";
import type * as grpc from "@grpc/grpc-js";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { MULTIPLEX_PROTO } from "@gantry/proto/paths";
import { frameMessage, MAX_MESSAGE_BYTES, MessageReader } from "./grpc-frame.ts";
import { lookupService } from "./grpc-proto.ts";
import { callerGone, deadlinePassed } from "./call-signal.ts";
import type { Caller, CallVerifier } from "./call-auth.ts";
import { type Deadline, DeadlineSweep } from "./deadline-sweep.ts";
import { tracedServerCall } from "./telemetry.ts";

interface Call {
  id: number;
  path: string;
  request: Buffer;
  /** Milliseconds left when sent; 0: none. */
  deadline_ms: number;
  metadata: Record<string, string>;
  /** Stops the call in flight with this id. */
  cancel: boolean;
}

/** What a call carries besides its request, on the stream as on a plain call. */
export interface CallExtras {
  /** Milliseconds the call may still take. */
  deadlineMs?: number;
  metadata?: Record<string, string>;
}

export interface Reply {
  id: number;
  status: number;
  response: Buffer;
  message: string;
  error: Buffer;
}

/** Room for the envelope around a message of the largest size either side takes. */
const ENVELOPE_BYTES = 1024;
/**
 * Calls one Calls stream may have running at once. Its requests are at most 64 KiB each, so this
 * also bounds what one connection's stream holds (~64 MiB); a busy gateway keeps a few hundred.
 */
export const MAX_CALLS_IN_FLIGHT = 1024;

/**
 * Requests larger than this go as plain unary calls: messages on one stream are sent one after the
 * other, so a large one would hold back every call behind it, where separate streams interleave.
 */
export const MULTIPLEX_MAX_REQUEST_BYTES = 64 * 1024;

let method: grpc.MethodDefinition<Call, Reply> | undefined;

/** The Calls method: its path and its two messages' codecs. */
export function multiplexMethod(): grpc.MethodDefinition<Call, Reply> {
  method ??= lookupService(MULTIPLEX_PROTO, "gantry.rpc.v1.Multiplex").service.Calls as grpc.MethodDefinition<
    Call,
    Reply
  >;
  return method;
}

/**
 * What became of a call sent on a stream: its reply; not run (the server stopped taking calls, or
 * has no such stream: `unimplemented`), so it may be sent again; or lost with the stream, when it
 * may have run.
 */
export type StreamOutcome = { reply: Reply } | { notRun: true; unimplemented: boolean } | { lost: true };

/** The client end: one per HTTP/2 connection, opened on the first call made on it. */
export class CallStream {
  private readonly def = multiplexMethod();
  private readonly stream: http2.ClientHttp2Stream;
  private readonly pending = new Map<number, (outcome: StreamOutcome) => void>();
  private nextId = 1;
  private ended = false;
  private answered = false;
  private status?: number;

  constructor(session: http2.ClientHttp2Session) {
    const def = this.def;
    this.stream = session.request(
      { ":method": "POST", ":path": def.path, "content-type": "application/grpc", te: "trailers" },
      { endStream: false },
    );
    const readStatus = (h: http2.IncomingHttpHeaders) => {
      if (h["grpc-status"] === undefined) return;
      this.status = Number(h["grpc-status"]);
      // The server has ended its side: end ours too, so the stream (and a closing connection) can close.
      this.ended = true;
      this.stream.end();
    };
    const reader = new MessageReader((message) => {
      let reply: Reply;
      try {
        reply = def.responseDeserialize(message);
      } catch {
        this.stream.close(http2.constants.NGHTTP2_PROTOCOL_ERROR);
        return;
      }
      this.answered = true;
      const done = this.pending.get(reply.id);
      if (!done) return; // timed out here already
      this.pending.delete(reply.id);
      done({ reply });
    }, MAX_MESSAGE_BYTES + ENVELOPE_BYTES);
    this.stream.on("response", readStatus); // trailers-only: no such method, or refused at once
    this.stream.on("trailers", readStatus);
    this.stream.on("data", (chunk: Buffer) => {
      if (reader.push(chunk) !== "ok") this.stream.close(http2.constants.NGHTTP2_PROTOCOL_ERROR);
    });
    this.stream.on("error", () => {
      // Reported on "close", which always follows.
    });
    this.stream.on("close", () => {
      this.ended = true;
      const outcome: StreamOutcome =
        this.status === GrpcStatus.OK
          ? { notRun: true, unimplemented: false }
          : this.status === GrpcStatus.UNIMPLEMENTED && !this.answered
            ? { notRun: true, unimplemented: true }
            : { lost: true };
      const left = [...this.pending.values()];
      this.pending.clear();
      for (const done of left) done(outcome);
    });
  }

  /** Whether calls may still be sent on it. */
  get open(): boolean {
    return !this.ended && !this.stream.closed && !this.stream.destroyed;
  }

  /** Sends a call; `done` hears its outcome once, unless `forget` came first. Returns its id. */
  send(path: string, request: Uint8Array, done: (outcome: StreamOutcome) => void, extras: CallExtras = {}): number {
    const id = this.nextId;
    this.nextId = this.nextId >= 0xffff_ffff ? 1 : this.nextId + 1;
    this.pending.set(id, done);
    const call = {
      id,
      path,
      request: request as Buffer,
      deadline_ms: extras.deadlineMs ?? 0,
      metadata: extras.metadata ?? {},
      cancel: false,
    };
    this.stream.write(frameMessage(this.def.requestSerialize(call)));
    return id;
  }

  /** Stops waiting for a call (its deadline passed); a late reply is dropped. */
  forget(id: number): void {
    this.pending.delete(id);
  }

  /** Stops waiting for a call and tells the server to stop it: its caller gave up. */
  cancel(id: number): void {
    if (!this.pending.delete(id) || !this.open) return;
    this.stream.write(
      frameMessage(
        this.def.requestSerialize({
          id,
          path: "",
          request: Buffer.alloc(0),
          deadline_ms: 0,
          metadata: {},
          cancel: true,
        }),
      ),
    );
  }

  /** Sends no more calls; the server answers those in flight, then ends the stream. */
  end(): void {
    if (this.open) this.stream.end();
  }
}

/**
 * What a handler gets of one call, plain or on the stream: the request, the caller's metadata, and a
 * signal that aborts (its reason a `timeout` GantryError) when the deadline passes or the caller gave
 * up. The grpc-js handler shape, with `signal` and `deadline` where grpc-js has `cancelled` and `getDeadline()`.
 */
export interface ServerCall<Req = unknown> {
  request: Req;
  metadata: Readonly<Record<string, string>>;
  signal: AbortSignal;
  /** Epoch ms, when the caller gave one. */
  deadline?: number;
  /** Who made the call, as its token proved (kit/call-auth); absent on an open route or with auth off. */
  caller?: Caller;
}

type UnaryHandler = (call: ServerCall, callback: (err: unknown, value?: unknown) => void) => void;

export interface UnaryRoute {
  method: grpc.MethodDefinition<unknown, unknown>;
  handler: UnaryHandler;
  /** Checks each call's token before its request is even decoded; none: an open route (health). */
  auth?: CallVerifier;
}

/**
 * Runs a unary route on its request message, as a plain call and the Calls stream both do: `answer`
 * hears the handler's error or response once; a call whose token does not hold is UNAUTHENTICATED
 * before anything else happens; a message that does not decode, or a handler that throws, is an
 * internal error (the throw's text is not sent).
 */
export function runRoute(
  route: UnaryRoute,
  message: Buffer,
  answer: (err: unknown, value?: unknown) => void,
  call: Omit<ServerCall, "request" | "caller">,
): void {
  let caller: Caller | undefined;
  if (route.auth) {
    const verdict = route.auth.authenticate(route.method.path, message, call.metadata);
    if ("refused" in verdict) {
      // No Gantry trailer: the client reads it as a deployment fault, not as the user's (kit/grpc-client).
      answer({ code: GrpcStatus.UNAUTHENTICATED, details: `call authentication: ${verdict.refused}` });
      return;
    }
    caller = verdict.caller;
  }
  let request: unknown;
  try {
    request = route.method.requestDeserialize(message);
  } catch {
    answer({ code: GrpcStatus.INTERNAL, details: "the request message does not decode" });
    return;
  }
  tracedServerCall(route.method.path, call.metadata, (ended) => {
    let answered = false;
    const once = (err: unknown, value?: unknown) => {
      if (answered) return;
      answered = true;
      ended(err);
      answer(err, value);
    };
    try {
      route.handler({ request, metadata: call.metadata, signal: call.signal, deadline: call.deadline, caller }, once);
    } catch {
      once({ code: GrpcStatus.INTERNAL, details: "internal error" });
    }
  });
}

/** A handler's error as a status, its message and the GantryError trailer, the parts a Reply carries. */
export interface StatusParts {
  code: number;
  details: string;
  trailer?: Buffer;
}

/**
 * The server end of one Calls stream: each call runs its unary route's handler, and its answer goes
 * back as a Reply. Returns `drain`, which stops taking calls and ends the stream once those taken
 * are answered (shutdown).
 */
export function serveCallStream(
  stream: http2.ServerHttp2Stream,
  routes: ReadonlyMap<string, UnaryRoute>,
  statusOf: (err: unknown) => StatusParts,
): { drain: () => void; closed: Promise<void> } {
  const def = multiplexMethod();
  /** Each call in flight's controller, for a cancel and for the end of the stream. */
  const running = new Map<number, AbortController>();
  /** The calls' deadlines, under one timer for the stream (kit/deadline-sweep). */
  const deadlines = new DeadlineSweep();
  let inFlight = 0;
  let draining = false;
  let endStatus: number = GrpcStatus.OK;
  let endMessage = "";
  const closed = new Promise<void>((resolve) =>
    stream.once("close", () => {
      deadlines.stop();
      // The client is gone: nobody will read what the calls in flight come to.
      for (const controller of running.values()) controller.abort(callerGone());
      running.clear();
      resolve();
    }),
  );
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.once("wantTrailers", () =>
    stream.sendTrailers({ "grpc-status": String(endStatus), "grpc-message": encodeURIComponent(endMessage) }),
  );
  const finish = (code: number, message = "") => {
    if (stream.closed || stream.destroyed || stream.writableEnded) return;
    endStatus = code;
    endMessage = message;
    stream.end();
  };
  const reply = (r: Partial<Reply> & { id: number }) => {
    if (stream.closed || stream.destroyed || stream.writableEnded) return;
    stream.write(frameMessage(def.responseSerialize(r as Reply)));
  };
  /** Stops taking calls; the stream ends once those taken are answered. */
  const drain = () => {
    draining = true;
    if (inFlight === 0) finish(GrpcStatus.OK);
  };
  const settle = () => {
    inFlight--;
    if (draining) drain();
  };
  const reader = new MessageReader((message) => {
    // Draining: a call that arrives now is not run, and the client sends it again elsewhere.
    if (draining) return;
    let call: Call;
    try {
      call = def.requestDeserialize(message);
    } catch {
      finish(GrpcStatus.INTERNAL, "a Call message does not decode");
      return;
    }
    const id = call.id;
    if (call.cancel) {
      running.get(id)?.abort(callerGone());
      return;
    }
    const route = routes.get(call.path);
    if (!route) {
      reply({ id, status: GrpcStatus.UNIMPLEMENTED, message: `unknown method ${call.path}` });
      return;
    }
    if (inFlight >= MAX_CALLS_IN_FLIGHT) {
      // Answered at once, not queued: a client past the cap is sending faster than calls finish.
      reply({ id, status: GrpcStatus.RESOURCE_EXHAUSTED, message: `more than ${MAX_CALLS_IN_FLIGHT} calls in flight` });
      return;
    }
    inFlight++;
    const controller = new AbortController();
    running.set(id, controller);
    let answered = false;
    let timer: Deadline | undefined;
    const deadline = call.deadline_ms > 0 ? Date.now() + call.deadline_ms : undefined;
    if (deadline !== undefined)
      timer = deadlines.after(call.deadline_ms, () => {
        // Answered now, whatever the handler does with the signal: the client stops waiting anyway.
        answered = true;
        running.delete(id);
        controller.abort(deadlinePassed(call.path));
        reply({ id, status: GrpcStatus.DEADLINE_EXCEEDED, message: "deadline exceeded" });
        settle();
      });
    const meta = { metadata: call.metadata, signal: controller.signal, deadline };
    runRoute(
      route,
      call.request,
      (err, value) => {
        if (answered) return;
        answered = true;
        deadlines.clear(timer);
        running.delete(id);
        if (err) {
          const s = statusOf(err);
          reply({ id, status: s.code, message: s.details, ...(s.trailer ? { error: s.trailer } : {}) });
        } else {
          const response = route.method.responseSerialize(value);
          if (response.length > MAX_MESSAGE_BYTES) {
            // As a unary client judges a response over the limit: internal (kit/grpc-client).
            reply({ id, status: GrpcStatus.INTERNAL, message: `response larger than ${MAX_MESSAGE_BYTES} bytes` });
          } else reply({ id, status: GrpcStatus.OK, response });
        }
        settle();
      },
      meta,
    );
  }, MAX_MESSAGE_BYTES + ENVELOPE_BYTES);
  stream.on("data", (chunk: Buffer) => {
    const read = reader.push(chunk);
    if (read === "ok") return;
    if (read === "too-large") finish(GrpcStatus.RESOURCE_EXHAUSTED, `a call larger than ${MAX_MESSAGE_BYTES} bytes`);
    else finish(GrpcStatus.UNIMPLEMENTED, "compressed messages are not accepted");
    // Nothing more is read from this stream: the client is told to stop sending.
    stream.close(http2.constants.NGHTTP2_CANCEL);
  });
  // The client sends no more calls: answer those in flight, then end ours.
  stream.on("end", drain);
  return { drain, closed };
}
