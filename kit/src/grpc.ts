/**
 * @module kit/grpc
 * Loading the contracts, making clients, and carrying a `GantryError` across a gRPC hop without
 * losing its code, reason or details. The error travels as JSON in the `gantry-error-bin` trailer;
 * a status without that trailer is a transport failure and maps by its gRPC code alone.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { PROTO_ROOT } from "@gantry/proto/paths";
import { GantryError, codeFromGrpcStatus, ERROR_TABLE, isErrorCode, type WireError } from "./errors.ts";

export { grpc };

const ERROR_TRAILER = "gantry-error-bin";

const loaded = new Map<string, grpc.GrpcObject>();

/** Loads a .proto under proto/ once per process. */
export function loadProto(file: string): grpc.GrpcObject {
  let obj = loaded.get(file);
  if (!obj) {
    const def = protoLoader.loadSync(file, {
      includeDirs: [PROTO_ROOT],
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    obj = grpc.loadPackageDefinition(def);
    loaded.set(file, obj);
  }
  return obj;
}

/** Walks `gantry.ability.v1.AbilityService` style names in a loaded package. */
export function lookupService(file: string, fullName: string): grpc.ServiceClientConstructor {
  let node: unknown = loadProto(file);
  for (const part of fullName.split(".")) node = (node as Record<string, unknown>)[part];
  if (typeof node !== "function") throw new Error(`service ${fullName} not found in ${file}`);
  return node as grpc.ServiceClientConstructor;
}

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  // Reconnect quickly after a restarted service comes back, so 503s stop as soon as it is healthy.
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 2_000,
  "grpc.max_receive_message_length": 16 * 1024 * 1024,
  "grpc.max_send_message_length": 16 * 1024 * 1024,
};

export function makeClient<C extends grpc.Client>(file: string, fullName: string, addr: string): C {
  const Ctor = lookupService(file, fullName);
  return new Ctor(addr, grpc.credentials.createInsecure(), CHANNEL_OPTIONS) as unknown as C;
}

/** Turns a thrown value into the status a gRPC handler returns. Unknown errors become `internal`. */
export function toGrpcError(err: unknown): Partial<grpc.StatusObject> {
  const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_TRAILER, Buffer.from(JSON.stringify(gerr.toJSON())));
  return { code: ERROR_TABLE[gerr.code].grpc, details: gerr.message, metadata };
}

/** Turns a client-side gRPC error back into a `GantryError`. */
export function fromGrpcError(err: grpc.ServiceError): GantryError {
  const raw = err.metadata?.get(ERROR_TRAILER)?.[0];
  if (raw !== undefined) {
    try {
      const wire = JSON.parse(Buffer.isBuffer(raw) ? raw.toString("utf8") : String(raw)) as WireError;
      if (isErrorCode(wire.code)) {
        return new GantryError(wire.code, wire.message, {
          reason: wire.reason,
          details: wire.details,
          retryAfterMs: wire.retryAfterMs,
        });
      }
    } catch {
      // fall through: treat as a transport failure
    }
  }
  const code = codeFromGrpcStatus(err.code);
  return new GantryError(code, err.details || err.message, { cause: err });
}

/** Promisified unary call with a deadline. */
export function unary<Req, Res>(
  client: grpc.Client,
  method: string,
  request: Req,
  opts: { deadlineMs?: number; metadata?: grpc.Metadata } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
    const deadline = new Date(Date.now() + (opts.deadlineMs ?? 30_000));
    // grpc-js captures the caller's stack on every call, to append it to a failed call's error.
    // We never show it (fromGrpcError keeps code and trailer only), and under load the capture and
    // its formatting were a large share of a call's CPU (docs/benchmarks.md), so it is skipped.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      fn.call(
        client,
        request,
        opts.metadata ?? new grpc.Metadata(),
        { deadline },
        (err: grpc.ServiceError | null, res: Res) => {
          if (err) reject(fromGrpcError(err));
          else resolve(res);
        },
      );
    } finally {
      Error.stackTraceLimit = limit;
    }
  });
}
