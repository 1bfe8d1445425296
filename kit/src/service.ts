/**
 * @module kit/service
 * The one service shape and the one gRPC server bootstrap. A service is `defineService({ name,
 * env, init, grpcServices?, close? })`: `init` receives the dependencies and returns the service's
 * context, which every handler receives as `ctx` (no module-level state anywhere). Handlers are
 * served from the service's generated ability index, `src/generated/abilities.ts` (kit/ability.ts).
 * `runService` does the rest in the same order everywhere: config, logger, Postgres migrations and
 * tenant isolation, NATS, `init` (in system scope), gRPC server with `grpc.health.v1`, graceful
 * shutdown.
 *
 * Every call runs inside `withTenant(call.tenant)` (kit/tenancy.ts), and whatever a handler throws
 * goes through the one database-error translation (kit/data/db-errors.ts). Before that, every call
 * but health's has proved its caller (kit/call-auth; the server checks the token before decoding),
 * and a service calling `Execute` may run only the abilities kit/topology lists for it. A service
 * without the call keys it needs does not start (unless GANTRY_CALL_AUTH=off).
 *
 * @example
 * // services/web/src/main.ts
 * main(defineService({ name: "web", init: () => ({}) })); // every owned ability answers 501
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { type AbilityId, abilitiesOfService, abilityById } from "@gantry/proto/catalogue";
import { ABILITY_PROTO } from "@gantry/proto/paths";
import { loadAbilities } from "./ability.ts";
import { type CallOutcome, withCallOutcome } from "./call-outcome.ts";
import { type ConfigOf, type EnvSchema, loadConfig } from "./config.ts";
import { translateDbError } from "./data/db-errors.ts";
import type { AbilityNeed } from "./ability-needs.ts";
import { sweepIdempotency } from "./data/idempotency.ts";
import { BASE_ENV, serviceAddrEnv } from "./env.ts";
import { CALL_AUTH_ENV, type CallKeys, loadCallKeys, mayExecute } from "./call-auth.ts";
import { GRPC_TLS_ENV, loadGrpcTls, useGrpcTls } from "./grpc-tls.ts";
import { GantryError } from "./errors.ts";
import { grpc, lookupService, toGrpcError } from "./grpc.ts";
import { type GrpcHandlers, RpcServer } from "./grpc-server.ts";
import type { ExecuteRequest } from "./generated/grpc.ts";
import { withCallSignal } from "./call-signal.ts";
import { describeCallSpan, recordCall, startTelemetry } from "./telemetry.ts";
import { healthService } from "./health.ts";
import { createLogger, type Logger } from "./logger.ts";
import { prepareSchema } from "./migrate.ts";
import { connectNats, type Nats } from "./nats.ts";
import { waitForPostgres } from "./postgres-wait.ts";
import { asSystem, TenantPool, withTenant } from "./tenancy.ts";
import { AREA_SERVICES, type AreaService, serviceSpec } from "./topology.ts";
import { validateInput, warmValidators } from "./validation.ts";
import { type CallContext, fromGrpcContext, type GrpcCallContext } from "./wire.ts";

export const VERSION = "0.1.0";

function serviceEnv(defaultPort: number) {
  return {
    GRPC_PORT: { type: "integer", minimum: 0, maximum: 65535, default: defaultPort, description: "gRPC port" },
    DATABASE_WAIT_SECONDS: {
      type: "integer",
      minimum: 0,
      maximum: 3600,
      default: 60,
      description:
        "how long a starting service waits for Postgres to answer (a database starting beside it, a busy cluster DNS) before it gives up",
    },
    GANTRY_DISABLED_ABILITIES: {
      type: "string",
      default: "",
      description:
        "ability ids switched off on this deployment, comma-separated (e.g. payout.send,payout.batch during an incident): they answer 501 and discovery shows them not wired; the same list may go to every service, each applies the ids it owns",
    },
    ...BASE_ENV,
    ...CALL_AUTH_ENV,
    ...GRPC_TLS_ENV,
    ...serviceAddrEnv(),
  } as const;
}

/**
 * The ids of `GANTRY_DISABLED_ABILITIES` this service owns. An id no service owns stops the start
 * (a typo must not leave an ability on that the operator meant to switch off).
 */
function disabledAbilities(raw: string, owned: ReadonlySet<string>): Set<string> {
  const ids = raw
    .split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  for (const id of ids)
    if (!abilityById.has(id as AbilityId))
      throw new Error(`GANTRY_DISABLED_ABILITIES names '${id}', which is no ability (see GET /v1/abilities)`);
  return new Set(ids.filter((id) => owned.has(id)));
}

/** The env schema of a service with no variables of its own. */
export type NoEnv = Record<never, never>;

/** The configuration of a service whose own variables are `E`. */
export type ServiceConfig<E extends EnvSchema = NoEnv> = ConfigOf<ReturnType<typeof serviceEnv> & E>;

export interface ServiceDeps<E extends EnvSchema = NoEnv> {
  name: AreaService;
  config: ServiceConfig<E>;
  log: Logger;
  nats: Nats;
  /** The service's pool when it owns a database schema: every connection carries the caller's tenant scope. */
  pool?: pg.Pool;
  /** Prisma driver adapter over `pool`, bound to the service's own schema. */
  prismaAdapter?: PrismaPg;
  /** `host:port` of every area service, for service-to-service calls by id. */
  addrs: Record<AreaService, string>;
  /** This service's call keys: `callKeys.signer(callee)` signs its calls to another service (kit/call-auth). */
  callKeys: CallKeys;
}

export interface ServiceDefinition<Ctx, E extends EnvSchema = NoEnv> {
  name: AreaService;
  /** The service's own environment, on top of the base (its config type is derived from it). */
  env?: E;
  /**
   * Builds the context every handler receives, after the dependencies are up and before the server
   * listens: clients, consumers, sweeps. Runs in system scope, and so do the timers and promise
   * chains it starts and every NATS callback (the connection is made in system scope).
   */
  init: (deps: ServiceDeps<E>) => Ctx | Promise<Ctx>;
  /**
   * Extra gRPC services (typed internal RPCs: `GrpcHandlers<"gantry.keys.v1.KeyResolver">`). Their
   * handlers choose their scope (`withTenant`/`asSystem`).
   */
  grpcServices?: (
    ctx: Ctx,
    deps: ServiceDeps<E>,
  ) => Array<{ service: grpc.ServiceDefinition; impl: Parameters<RpcServer["addService"]>[1] }>;
  /** Called on shutdown before connections close. */
  close?: (ctx: Ctx, deps: ServiceDeps<E>) => Promise<void>;
  /** What wired abilities cannot do with this configuration (asked at every Describe; kit/ability-needs). */
  needs?: (ctx: Ctx) => AbilityNeed[];
}

/** Declares a service; types flow from `env` to `deps.config` and from `init` to every handler's `ctx`. */
export function defineService<Ctx, const E extends EnvSchema = NoEnv>(
  def: ServiceDefinition<Ctx, E>,
): ServiceDefinition<Ctx, E> {
  return def;
}

export function repoRoot(): string {
  return fileURLToPath(new URL("../../", import.meta.url));
}

export interface RunningService<Ctx, E extends EnvSchema> {
  ctx: Ctx;
  deps: ServiceDeps<E>;
  port: number;
  stop: () => Promise<void>;
}

const IDEMPOTENCY_SWEEP_MS = 3_600_000;

/**
 * Applies migrations and tenant isolation with a short-lived pool of the login role, once Postgres
 * answers (DATABASE_WAIT_SECONDS, default 60).
 */
async function prepareDatabase(
  name: AreaService,
  url: string,
  log: Logger,
  waitSeconds: number,
): Promise<{ role?: string }> {
  const admin = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  admin.on("error", (err) => log.warn({ err: err.message }, "postgres pool error"));
  try {
    await waitForPostgres(admin, waitSeconds, log);
    const prepared = await prepareSchema(admin, name, join(repoRoot(), "services", name, "prisma", "migrations"));
    const fresh = prepared.migrations.filter((m) => m.applied).map((m) => m.name);
    if (fresh.length) log.info({ migrations: fresh }, "migrations applied");
    log.debug(
      { tables: prepared.tenantTables, role: prepared.role ?? "login role" },
      "row-level security on tenant tables",
    );
    return { role: prepared.role };
  } finally {
    await admin.end().catch(() => {});
  }
}

export async function runService<Ctx, E extends EnvSchema>(
  def: ServiceDefinition<Ctx, E>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningService<Ctx, E>> {
  const spec = serviceSpec(def.name);
  const log = createLogger(def.name, env.LOG_LEVEL ?? "info");
  // Before any connection opens: the instrumentations see the pool and the first statements.
  const stopTelemetry = await startTelemetry(def.name, env);
  if (stopTelemetry) log.info("OpenTelemetry on (OTEL_* variables)");
  const schema = { ...serviceEnv(spec.defaultPort), ...def.env } as ReturnType<typeof serviceEnv> & E;
  const config = loadConfig(def.name, schema, spec.database ? ["DATABASE_URL"] : [], env) as ServiceConfig<E>;
  const values = config as Record<string, unknown>;
  const addrs = Object.fromEntries(AREA_SERVICES.map((s) => [s.name, String(values[s.addrEnv])])) as Record<
    AreaService,
    string
  >;

  // Checked before anything starts: a refused configuration leaves nothing running.
  const owned = abilitiesOfService(def.name);
  const ownedIds = new Set(owned.map((a) => a.id));
  const disabled = disabledAbilities(String(values.GANTRY_DISABLED_ABILITIES ?? ""), ownedIds);
  const callKeys = loadCallKeys(def.name, values);
  if (!callKeys.verifier) log.warn("GANTRY_CALL_AUTH=off: calls are taken without proof of their caller");
  const tls = loadGrpcTls(values);
  useGrpcTls(tls);

  let pool: TenantPool | undefined;
  let prismaAdapter: PrismaPg | undefined;
  const url = values.DATABASE_URL as string | undefined;
  if (spec.database && url) {
    const { role } = await prepareDatabase(def.name, url, log, Number(values.DATABASE_WAIT_SECONDS));
    pool = new TenantPool({ connectionString: url, max: 10, role });
    pool.on("error", (err) => log.warn({ err: err.message }, "postgres pool error"));
    prismaAdapter = new PrismaPg(pool, { schema: def.name });
  }

  // Connected in system scope: NATS delivers subscription callbacks in the async context of the
  // connection, so consumers see every tenant's rows, as background work should. (Awaits inside a
  // call keep the call's scope: promise continuations follow the awaiting code.)
  const nats = await asSystem(() => connectNats(String(values.NATS_URL), def.name, log));
  const deps: ServiceDeps<E> = { name: def.name, config, log, nats, pool, prismaAdapter, addrs, callKeys };
  const ctx = await asSystem(() => def.init(deps));

  const handlers = await loadAbilities<Ctx>(def.name, join(repoRoot(), "services", def.name, "src"), ownedIds);
  for (const id of disabled) handlers.delete(id);
  if (disabled.size > 0) log.warn({ disabled: [...disabled] }, "abilities switched off by GANTRY_DISABLED_ABILITIES");
  warmValidators([...ownedIds]);

  const execute = async (
    req: ExecuteRequest,
    call: CallContext,
  ): Promise<{ result: unknown; outcome: CallOutcome }> => {
    if (!ownedIds.has(req.ability))
      throw new GantryError("unknown_ability", `The ${def.name} service does not own "${req.ability}".`);
    const handler = handlers.get(req.ability);
    if (!handler && disabled.has(req.ability)) {
      throw new GantryError("not_implemented", `${req.ability} is switched off on this deployment.`, {
        reason: `The operator switched ${req.ability} off (GANTRY_DISABLED_ABILITIES on the ${def.name} service).`,
      });
    }
    if (!handler) {
      throw new GantryError("not_implemented", `${req.ability} is declared but not wired yet.`, {
        reason: `The ${def.name} service has no handler for ${req.ability} yet.`,
      });
    }
    let input: unknown;
    try {
      input = JSON.parse(req.input_json || "{}");
    } catch {
      throw new GantryError("invalid_json", "input_json is not valid JSON");
    }
    validateInput(req.ability, input);
    if (!call.tenant) throw new GantryError("invalid_request", "The call carries no tenant.");
    return withCallOutcome(() => withTenant(call.tenant, () => handler.run(input as never, call, ctx)));
  };

  const server = new RpcServer({ auth: callKeys.verifier ?? undefined, tls });
  const AbilityService = lookupService(ABILITY_PROTO, "gantry.ability.v1.AbilityService");
  const abilityService: GrpcHandlers<"gantry.ability.v1.AbilityService"> = {
    Execute: (call, callback) => {
      const req = call.request;
      // The token proved who asks (the server checked it); a service may run only what it is listed for.
      if (call.caller && !mayExecute(call.caller, def.name, req.ability)) {
        callback({
          code: grpc.status.UNAUTHENTICATED,
          details: `call authentication: ${call.caller} may not run ${req.ability} on ${def.name}`,
        } as grpc.ServiceError);
        return;
      }
      const callCtx = fromGrpcContext(req.context ?? ({} as GrpcCallContext));
      callCtx.signal = call.signal;
      callCtx.deadline = call.deadline;
      describeCallSpan(req.ability, callCtx.requestId);
      const started = performance.now();
      withCallSignal(call.signal, () => execute(req, callCtx)).then(
        ({ result, outcome }) => {
          recordCall(req.ability, (performance.now() - started) / 1000);
          callback(null, { result_json: JSON.stringify(result ?? null), replayed: outcome.replayed });
        },
        (thrown) => {
          const err = translateDbError(thrown) ?? thrown;
          const gerr = err instanceof GantryError ? err : null;
          recordCall(req.ability, (performance.now() - started) / 1000, gerr?.code ?? "internal");
          // 501 (declared, not wired) is an expected answer, as the gateway treats it, not a failure:
          // an error line with a stack per call was noise and cost (see docs/benchmarks.md).
          if (!gerr || (gerr.httpStatus >= 500 && gerr.code !== "not_implemented")) {
            const cause = gerr?.cause ?? err;
            log.error(
              {
                requestId: callCtx.requestId,
                ability: req.ability,
                code: gerr?.code ?? "internal",
                err:
                  cause instanceof Error
                    ? { message: cause.message, stack: cause.stack, cause: String(cause.cause ?? "") }
                    : String(cause),
              },
              "ability failed",
            );
          } else {
            log.debug(
              { requestId: callCtx.requestId, ability: req.ability, code: gerr.code, ms: performance.now() - started },
              "ability refused",
            );
          }
          callback(toGrpcError(err) as grpc.ServiceError);
        },
      );
    },
    Describe: (_call, callback) => {
      const needs = def.needs?.(ctx) ?? [];
      callback(null, {
        service: def.name,
        version: VERSION,
        abilities: owned.map((a) => ({
          id: a.id,
          wired: handlers.has(a.id),
          needs: handlers.has(a.id)
            ? needs.filter((n) => n.ability === a.id).map((n) => ({ ...n, ability: undefined, part: n.part ?? "" }))
            : [],
        })),
      });
    },
  };
  server.addService(AbilityService.service, abilityService);
  for (const extra of def.grpcServices?.(ctx, deps) ?? []) server.addService(extra.service, extra.impl);
  const health = healthService();
  // Open: kubelet's probe and the runner's carry no token.
  server.addService(health.service, health.impl, { open: true });

  const port = await server.listen(String(values.GRPC_HOST), Number(values.GRPC_PORT));
  // The local runner hands this address on only once this process says it bound it
  // (infra/runner/bound-ports.ts), whatever LOG_LEVEL hides.
  if (process.env.GANTRY_LISTEN_FILE) writeFileSync(process.env.GANTRY_LISTEN_FILE, String(port));
  health.set("SERVING");
  log.info({ port, wired: handlers.size, owned: owned.length }, `${def.name} service listening`);

  const sweep = pool ? startIdempotencySweep(pool, def.name, log) : undefined;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      health.set("NOT_SERVING");
      if (sweep) clearInterval(sweep);
      await server.shutdown(5_000);
      await def.close?.(ctx, deps).catch((err) => log.warn({ err: String(err) }, "close hook failed"));
      await nats.nc.drain().catch(() => {});
      await pool?.end().catch(() => {});
      await stopTelemetry?.().catch((err) => log.warn({ err: String(err) }, "telemetry flush failed"));
      log.info("stopped");
    })());
  return { ctx, deps, port, stop };
}

/** Hourly deletion of expired idempotency rows, for services that keep them. */
function startIdempotencySweep(pool: pg.Pool, schema: string, log: Logger): NodeJS.Timeout {
  const timer = setInterval(() => {
    asSystem(async () => {
      const { rowCount } = await pool.query(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'idempotency_records'",
        [schema],
      );
      if (!rowCount) return;
      const removed = await sweepIdempotency(pool, schema);
      if (removed) log.info({ removed }, "expired idempotency records removed");
    }).catch((err) => log.warn({ err: String(err) }, "idempotency sweep failed"));
  }, IDEMPOTENCY_SWEEP_MS);
  timer.unref();
  return timer;
}

/** Entry-point helper: run the service, exit non-zero with a readable message if start fails. */
export function main<Ctx, E extends EnvSchema>(def: ServiceDefinition<Ctx, E>): void {
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

/**
 * Limits of every interactive transaction (`$transaction(async (tx) => …)`) that names none.
 * Prisma's own (2 s to start, 5 s to finish) end a call that waits behind a row another call holds,
 * or for a loaded database, with "expired transaction" (503 by kit/src/data/db-errors.ts) although
 * it would have succeeded; together these stay within the gateway's default call deadline
 * (UPSTREAM_TIMEOUT_MS, 30 s), so a transaction does not outlive the caller's wait.
 */
export const TRANSACTION_LIMITS = { maxWait: 10_000, timeout: 20_000 } as const;

/**
 * The service's Prisma client over its tenant-scoped pool and schema (one factory for every
 * service; pass the client class generated for the service).
 *
 * @example
 * const db = prismaClient(deps, PrismaClient);
 */
export function prismaClient<T>(
  deps: Pick<ServiceDeps, "name" | "prismaAdapter">,
  Client: new (options: { adapter: PrismaPg; transactionOptions: { maxWait: number; timeout: number } }) => T,
): T {
  if (!deps.prismaAdapter) throw new Error(`${deps.name} service started without a database (DATABASE_URL)`);
  return new Client({ adapter: deps.prismaAdapter, transactionOptions: { ...TRANSACTION_LIMITS } });
}
