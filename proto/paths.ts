/**
 * @module proto/paths
 * Where the .proto contracts live, so gateway and services load the same files.
 */
import { fileURLToPath } from "node:url";

export const PROTO_ROOT = fileURLToPath(new URL(".", import.meta.url));
export const ABILITY_PROTO = "gantry/ability/v1/ability.proto";
export const KEYS_PROTO = "gantry/keys/v1/keys.proto";
export const CONNECTIONS_PROTO = "gantry/connections/v1/connections.proto";
export const INGRESS_PROTO = "gantry/ingress/v1/ingress.proto";
export const TRUST_PROTO = "gantry/trust/v1/trust.proto";
export const MULTIPLEX_PROTO = "gantry/rpc/v1/multiplex.proto";
export const MEMORY_LESSONS_PROTO = "gantry/memory/v1/lessons.proto";
