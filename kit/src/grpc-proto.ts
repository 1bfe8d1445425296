/**
 * @module kit/grpc-proto
 * Loading the .proto contracts under proto/, once per process, for clients, servers and the
 * multiplexed call stream alike.
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { PROTO_ROOT } from "@gantry/proto/paths";

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
