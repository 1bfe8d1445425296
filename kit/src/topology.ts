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
  /**
   * Whether the service offers `idempotencyKey` through the kit (kit/src/data/idempotency.ts): the
   * kit's migration runner then creates the kit-owned `idempotency_records` table in its schema.
   */
  idempotency?: boolean;
}

export const AREA_SERVICES: readonly ServiceSpec[] = [
  { name: "keys", defaultPort: 50051, addrEnv: "KEYS_ADDR", database: true },
  { name: "connections", defaultPort: 50052, addrEnv: "CONNECTIONS_ADDR", database: true, idempotency: true },
  { name: "payments", defaultPort: 50053, addrEnv: "PAYMENTS_ADDR", database: true, idempotency: true },
  { name: "memory", defaultPort: 50054, addrEnv: "MEMORY_ADDR", database: true },
  { name: "content", defaultPort: 50055, addrEnv: "CONTENT_ADDR", database: true, idempotency: true },
  { name: "trust", defaultPort: 50056, addrEnv: "TRUST_ADDR", database: true, idempotency: true },
  { name: "workspace", defaultPort: 50057, addrEnv: "WORKSPACE_ADDR", database: true, idempotency: true },
  { name: "web", defaultPort: 50058, addrEnv: "WEB_ADDR", database: true },
];

export const GATEWAY_DEFAULT_PORT = 8080;

/**
 * One kind of call a service makes to another. The gateway may call every method of every service
 * except the typed RPCs listed here (those without `abilities`): they are the services' own.
 */
export interface InternalCall {
  caller: AreaService;
  callee: AreaService;
  /** The gRPC method path. */
  method: string;
  /** For `AbilityService/Execute`: the abilities the caller may run there. */
  abilities?: readonly string[];
}

/**
 * Every call one service makes to another, as the code makes them. Call authentication
 * (kit/call-auth) lets through nothing else: a service's key for a pair not listed here buys it no
 * call. Add a line here before a service calls another.
 */
export const INTERNAL_CALLS: readonly InternalCall[] = [
  // Which credential to use for a tenant (kit/credential-resolver).
  { caller: "payments", callee: "connections", method: "/gantry.connections.v1.CredentialResolver/ResolveCredential" },
  { caller: "content", callee: "connections", method: "/gantry.connections.v1.CredentialResolver/ResolveCredential" },
  // Plans read decisions and append lessons on the caller's behalf (services/trust/src/memory.ts).
  {
    caller: "trust",
    callee: "memory",
    method: "/gantry.ability.v1.AbilityService/Execute",
    abilities: ["decision.list", "lesson.record"],
  },
  // Consolidated lessons: plan.create's relevant critical/high ones, skill.load guardrails' critical
  // ones (services/memory/src/lessons.ts).
  { caller: "trust", callee: "memory", method: "/gantry.memory.v1.Lessons/ListConsolidated" },
  { caller: "content", callee: "memory", method: "/gantry.memory.v1.Lessons/ListConsolidated" },
];

export function serviceSpec(name: AreaService): ServiceSpec {
  const spec = AREA_SERVICES.find((s) => s.name === name);
  if (!spec) throw new Error(`unknown service ${name}`);
  return spec;
}
