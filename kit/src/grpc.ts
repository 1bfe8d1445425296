/**
 * @module kit/grpc
 * Loading the contracts, making clients, and carrying a `GantryError` across a gRPC hop without
 * losing its code, reason or details. The error travels as JSON in the `gantry-error-bin` trailer;
 * a status without that trailer is a transport failure and maps by its gRPC code alone.
 */
import * as grpc from "@grpc/grpc-js";
import { GantryError, ERROR_TABLE } from "./errors.ts";
import { type ClientOptions, ERROR_TRAILER, type GrpcServiceName, RpcClient } from "./grpc-client.ts";
import type { GrpcServiceFiles } from "./generated/grpc.ts";
import { lookupService } from "./grpc-proto.ts";

export { grpc };
export { loadProto, lookupService } from "./grpc-proto.ts";

/**
 * A client of `fullName` (kit/grpc-client: round robin over the replicas `addr` names); with
 * `opts.signer` (a process's `CallKeys.signer(callee)`) every call proves who makes it. Typed by the
 * service: `file` must be the .proto that declares it, and `unary` takes only its methods.
 */
export function makeClient<S extends GrpcServiceName>(
  file: GrpcServiceFiles[S],
  fullName: S,
  addr: string,
  opts: ClientOptions = {},
): RpcClient<S> {
  return new RpcClient<S>(lookupService(file, fullName), addr, opts);
}

/** Turns a thrown value into the status a gRPC handler returns. Unknown errors become `internal`. */
export function toGrpcError(err: unknown): Partial<grpc.StatusObject> {
  const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_TRAILER, Buffer.from(JSON.stringify(gerr.toJSON())));
  return { code: ERROR_TABLE[gerr.code].grpc, details: gerr.message, metadata };
}
