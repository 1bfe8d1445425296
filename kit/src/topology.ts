/**
 * @module kit/topology
 * The processes Gantry is made of, their default ports and the environment variables that point
 * at them. The local runner, the gateway, the Helm chart's values and the tests all read this list
 * so a service is added in one place.
 */
import type { ServiceName } from "@gantry/proto/catalogue/types.ts";

export type AreaService = Exclude<ServiceName, "gateway">;

/** The env var naming a service's `host:port`: `KEYS_ADDR`, `WORKSPACE_ADDR`, … */
export type AddrEnv = `${Uppercase<AreaService>}_ADDR`;

export interface ServiceSpec {
  name: AreaService;
  /** Default gRPC port when `GRPC_PORT` is not set. */
  defaultPort: number;
  /** Env var the gateway (and other services) read for this service's `host:port`. */
  addrEnv: AddrEnv;
  /** Whether the service owns a Postgres schema (named after the service). */
  database: boolean;
}

export const AREA_SERVICES: readonly ServiceSpec[] = [
  { name: "keys", defaultPort: 50051, addrEnv: "KEYS_ADDR", database: true },
  { name: "connections", defaultPort: 50052, addrEnv: "CONNECTIONS_ADDR", database: true },
  { name: "payments", defaultPort: 50053, addrEnv: "PAYMENTS_ADDR", database: true },
  { name: "memory", defaultPort: 50054, addrEnv: "MEMORY_ADDR", database: true },
  { name: "content", defaultPort: 50055, addrEnv: "CONTENT_ADDR", database: true },
  { name: "trust", defaultPort: 50056, addrEnv: "TRUST_ADDR", database: true },
  { name: "workspace", defaultPort: 50057, addrEnv: "WORKSPACE_ADDR", database: true },
  { name: "web", defaultPort: 50058, addrEnv: "WEB_ADDR", database: true },
];

export const GATEWAY_DEFAULT_PORT = 8080;

export function serviceSpec(name: AreaService): ServiceSpec {
  const spec = AREA_SERVICES.find((s) => s.name === name);
  if (!spec) throw new Error(`unknown service ${name}`);
  return spec;
}
