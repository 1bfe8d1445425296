/**
 * @module kit/grpc
 * Loading the contracts, making clients, and carrying a `GantryError` across a gRPC hop without
 * losing its code, reason or details. The error travels as JSON in the `gantry-error-bin` trailer;
 * a status without that trailer is a transport failure and maps by its gRPC code alone.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { PROTO_ROOT } from "@gantry/proto/paths";
import { GantryError, ERROR_TABLE } from "./errors.ts";
import { ERROR_TRAILER, RpcClient } from "./grpc-client.ts";

export { grpc };

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

/** A client of `fullName` (kit/grpc-client: round robin over the replicas `addr` names). */
export function makeClient(file: string, fullName: string, addr: string): RpcClient {
  return new RpcClient(lookupService(file, fullName), addr);
}

/** Turns a thrown value into the status a gRPC handler returns. Unknown errors become `internal`. */
export function toGrpcError(err: unknown): Partial<grpc.StatusObject> {
  const gerr = err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err });
  const metadata = new grpc.Metadata();
  metadata.set(ERROR_TRAILER, Buffer.from(JSON.stringify(gerr.toJSON())));
  return { code: ERROR_TABLE[gerr.code].grpc, details: gerr.message, metadata };
}
