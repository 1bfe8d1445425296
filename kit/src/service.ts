/**
 * @module kit/service
 * The one gRPC server bootstrap. A service declares its abilities (id → handler) and optional
 * extra gRPC services; `runService` does the rest in the same order everywhere: config, logger,
 * Postgres + migrations, NATS, gRPC server with `grpc.health.v1`, graceful shutdown.
 *
 * @example
 * await runService({ name: "web", abilities: {} }); // every owned ability answers 501
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HealthImplementation } from "grpc-health-check";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { abilitiesOfService } from "@gantry/proto/catalogue";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { loadConfig, type EnvSchema } from "./config.ts";
import { createLogger, type Logger } from "./logger.ts";
import { grpc, lookupService, toGrpcError } from "./grpc.ts";
import { GantryError } from "./errors.ts";
import { connectNats, type Nats } from "./nats.ts";
import { migrate } from "./migrate.ts";
import { serviceSpec, AREA_SERVICES, type AreaService } from "./topology.ts";
import { validateInput, warmValidators } from "./validation.ts";
import { fromGrpcContext, type CallContext, type GrpcCallContext } from "./wire.ts";


export const VERSION = "0.1.0";

export interface BaseConfig {
  GRPC_PORT: number;
  GRPC_HOST: string;
  DATABASE_URL?: string;
  NATS_URL: string;
  LOG_LEVEL: string;
  [key: string]: unknown;
}

export interface ServiceDeps<C extends BaseConfig = BaseConfig> {
  name: AreaService;
  config: C;
  log: Logger;
  nats: Nats;
  /** Present when the service owns a database schema. */
  pool?: pg.Pool;
  /** Prisma driver adapter bound to the service's own schema. */
  prismaAdapter?: PrismaPg;
  /** `host:port` of every area service, for service-to-service calls by id. */
  addrs: Record<AreaService, string>;
}

export type AbilityHandler<C extends BaseConfig = BaseConfig> = (input: any, call: CallContext, deps: ServiceDeps<C>) => Promise<unknown>;

export interface ServiceDefinition<C extends BaseConfig = BaseConfig> {
  name: AreaService;
  /** Extra environment this service reads, on top of the base schema. */
  env?: EnvSchema;
  requiredEnv?: string[];
  /** Called after dependencies are up and before the server listens: create clients, start consumers. */
  init?: (deps: ServiceDeps<C>) => Promise<void>;
  /** Handlers by ability id. Owned abilities without a handler answer `not_implemented` (HTTP 501). */
  abilities: (deps: ServiceDeps<C>) => Record<string, AbilityHandler<C>>;
  /** Extra gRPC services (typed internal RPCs). */
  grpcServices?: (deps: ServiceDeps<C>) => Array<{ service: grpc.ServiceDefinition; impl: grpc.UntypedServiceImplementation }>;
  /** Called on shutdown before connections close. */
  close?: (deps: ServiceDeps<C>) => Promise<void>;
}

export const BASE_ENV: EnvSchema = {
  GRPC_HOST: { type: "string", default: "0.0.0.0", description: "interface the gRPC server binds" },
  DATABASE_URL: { type: "string", pattern: "^postgres(ql)?://", description: "Postgres URL; the service uses its own schema" },
  NATS_URL: { type: "string", default: "nats://127.0.0.1:4222", description: "NATS server URL(s), comma-separated" },
  LOG_LEVEL: { type: "string", enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"], default: "info", description: "log level" },
};

export function serviceAddrEnv(): EnvSchema {
  const out: EnvSchema = {};
  for (const s of AREA_SERVICES) {
    out[s.addrEnv] = { type: "string", default: `127.0.0.1:${s.defaultPort}`, description: `host:port of the ${s.name} service` };
  }
  return out;
}

interface GrpcExecuteRequest {
  ability: string;
  input_json: string;
  context: GrpcCallContext | null;
}

export function repoRoot(): string {
  return fileURLToPath(new URL("../../", import.meta.url));
}

export async function runService<C extends BaseConfig>(def: ServiceDefinition<C>): Promise<{ deps: ServiceDeps<C>; port: number; stop: () => Promise<void> }> {
  const spec = serviceSpec(def.name);
  const log = createLogger(def.name);
  const config = loadConfig<C>(
    def.name,
    {
      GRPC_PORT: { type: "integer", minimum: 0, maximum: 65535, default: spec.defaultPort, description: "gRPC port" },
      ...BASE_ENV,
      ...serviceAddrEnv(),
      ...def.env,
    },
    [...(spec.database ? ["DATABASE_URL"] : []), ...(def.requiredEnv ?? [])],
  );
  const addrs = Object.fromEntries(AREA_SERVICES.map((s) => [s.name, String(config[s.addrEnv])])) as Record<AreaService, string>;

  let pool: pg.Pool | undefined;
  let prismaAdapter: PrismaPg | undefined;
  if (spec.database) {
    pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 10 });
    pool.on("error", (err) => log.warn({ err: err.message }, "postgres pool error"));
    const applied = await migrate(pool, def.name, join(repoRoot(), "services", def.name, "prisma", "migrations"));
    const fresh = applied.filter((m) => m.applied).map((m) => m.name);
    if (fresh.length) log.info({ migrations: fresh }, "migrations applied");
    prismaAdapter = new PrismaPg({ connectionString: config.DATABASE_URL!, max: 10 }, { schema: def.name });
  }

  const nats = await connectNats(config.NATS_URL, def.name, log);
  const deps: ServiceDeps<C> = { name: def.name, config, log, nats, pool, prismaAdapter, addrs };
  await def.init?.(deps);

  const handlers = def.abilities(deps);
  const owned = abilitiesOfService(def.name);
  const ownedIds = new Set(owned.map((a) => a.id));
  warmValidators([...ownedIds]);
  for (const id of Object.keys(handlers)) {
    if (!ownedIds.has(id)) throw new Error(`${def.name}: handler for ${id}, which the catalogue gives to another service`);
  }

  const server = new grpc.Server({ "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
  server.addService(AbilityService.service, {
    Execute: (call: grpc.ServerUnaryCall<GrpcExecuteRequest, unknown>, callback: grpc.sendUnaryData<{ result_json: string }>) => {
      const req = call.request;
      const ctx = fromGrpcContext(req.context ?? ({} as GrpcCallContext));
      const started = performance.now();
      (async () => {
        if (!ownedIds.has(req.ability)) throw new GantryError("unknown_ability", `The ${def.name} service does not own "${req.ability}".`);
        const handler = handlers[req.ability];
        if (!handler) {
          throw new GantryError("not_implemented", `${req.ability} is declared but not wired yet.`, {
            reason: `The ${def.name} service has no handler for ${req.ability}; see docs/abilities.md for its status.`,
          });
        }
        let input: unknown;
        try {
          input = JSON.parse(req.input_json || "{}");
        } catch {
          throw new GantryError("invalid_json", "input_json is not valid JSON");
        }
        validateInput(req.ability, input);
        return handler(input, ctx, deps);
      })().then(
        (result) => callback(null, { result_json: JSON.stringify(result ?? null) }),
        (err) => {
          const gerr = err instanceof GantryError ? err : null;
          // 501 (declared, not wired) is an expected answer, as the gateway treats it, not a failure:
          // an error line with a stack per call was noise and cost (see docs/benchmarks.md).
          if (!gerr || (gerr.httpStatus >= 500 && gerr.code !== "not_implemented")) {
            log.error({ requestId: ctx.requestId, ability: req.ability, err: err instanceof Error ? { message: err.message, stack: err.stack, cause: String(err.cause ?? "") } : String(err) }, "ability failed");
          } else {
            log.debug({ requestId: ctx.requestId, ability: req.ability, code: gerr.code, ms: performance.now() - started }, "ability refused");
          }
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
    Describe: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => {
      callback(null, {
        service: def.name,
        version: VERSION,
        abilities: owned.map((a) => ({ id: a.id, wired: Object.hasOwn(handlers, a.id) })),
      });
    },
  });
  for (const extra of def.grpcServices?.(deps) ?? []) server.addService(extra.service, extra.impl);
  const health = new HealthImplementation({ "": "NOT_SERVING" });
  health.addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${config.GRPC_HOST}:${config.GRPC_PORT}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  health.setStatus("", "SERVING");
  log.info({ port, wired: Object.keys(handlers).length, owned: owned.length }, `${def.name} service listening`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      health.setStatus("", "NOT_SERVING");
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      await def.close?.(deps).catch((err) => log.warn({ err: String(err) }, "close hook failed"));
      await nats.nc.drain().catch(() => {});
      await pool?.end().catch(() => {});
      log.info("stopped");
    })());
  return { deps, port, stop };
}

/** Entry-point helper: run the service, exit non-zero with a readable message if start fails. */
export function main<C extends BaseConfig>(def: ServiceDefinition<C>): void {
  runService(def).then(
    ({ stop }) => {
      const onSignal = () => stop().then(() => process.exit(0));
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
    },
    (err) => {
      process.stderr.write(`${def.name}: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
