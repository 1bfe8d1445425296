/**
 * @module infra/runner/stack
 * Starts a whole local Gantry: dependencies (Postgres, NATS, optionally Redis: local instances
 * unless URLs are given), the eight area services (optionally several replicas of one) and one or
 * more gateways, each as a separate, supervised process. Used by `npm start` ({@link ./start.ts})
 * and by integration tests.
 *
 * Order: dependencies (in parallel) → area services (in parallel, each until its gRPC health
 * check answers SERVING) → gateways (until `GET /health` answers 200). A crashed process is
 * restarted with backoff (200 ms doubling to 5 s); `stopService` stops one on purpose (no restart).
 * `stop()` stops gateways, then services, then dependencies: SIGTERM, SIGKILL after 5 s. If the
 * calling process dies without `stop()`, a detached watchdog kills what is left.
 *
 * @example
 * import { startStack } from "@gantry/infra/runner/stack.ts";
 * const stack = await startStack({ port: 0, quiet: true, env: { GANTRY_ADMIN_KEY: key } });
 * try {
 *   const res = await fetch(`${stack.baseUrl}/health`);
 * } finally {
 *   await stack.stop();
 * }
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { pathToFileURL } from "node:url";
import { AREA_SERVICES, GATEWAY_DEFAULT_PORT, type AreaService } from "@gantry/kit/topology.ts";
import { CHROMIUM_NO_SANDBOX_ENV } from "@gantry/kit/chromium.ts";
import { findNatsServer, findRedisServer, REPO_ROOT } from "./binaries.ts";
import { chromiumSandboxRefusal } from "./chromium-sandbox.ts";
import { ensureDirectory } from "./directory.ts";
import { gatewayReady, tcpOpen } from "./health.ts";
import { startOnPickedPort } from "./picked-port.ts";
import { pickPort, releasePort } from "./ports.ts";
import { BoundPort } from "./bound-ports.ts";
import { type SchemaRoles, schemaRoleNames } from "@gantry/kit/postgres-roles.ts";
import { adoptPassword, ensureDatabase, preparePostgres, searchableByOthers } from "./postgres.ts";
import { prepareLocalSchemas } from "./schemas.ts";
import { defaultSeedCache, seedCluster } from "./seed-cluster.ts";
import { LogSink, ManagedProcess, Watchdog, type LineHandler, type ProcessSpec } from "./supervisor.ts";

export { REPO_ROOT } from "./binaries.ts";
export type { LineHandler } from "./supervisor.ts";

export interface StackOptions {
  /** Port of the first gateway. Default 8080; 0 picks a free port (and makes the stack ephemeral). */
  port?: number;
  /**
   * Where local dependencies keep their data (`postgres/`, `nats/`). Default `<repo>/.gantry`;
   * an ephemeral stack without one gets a fresh temporary directory, removed by `stop()`.
   */
  dataDir?: string;
  /**
   * Throwaway stack (tests): every port is picked free, Postgres runs without fsync, and a
   * temporary data directory is used unless `dataDir` is given. Default: `port === 0`.
   */
  ephemeral?: boolean;
  /** Use this Postgres instead of starting one. */
  databaseUrl?: string;
  /** Use this NATS server instead of starting one. */
  natsUrl?: string;
  /**
   * The local nats-server takes only logins: one per process, each with publish rights on its own
   * area's subjects only (SECURITY.md); `NATS_URL` in `env` is the runner's (kit/nats's
   * `natsConnectOptions` reads it). Default true; false starts it open (no test needs that).
   */
  natsAuth?: boolean;
  /** Use this Redis (passed to every process as REDIS_URL). */
  redisUrl?: string;
  /**
   * Where a new local cluster is copied from instead of made by initdb and every migration
   * (./seed-cluster.ts), or `false`. Default: the machine's cache (`~/.cache/gantry/postgres-seed`,
   * `GANTRY_POSTGRES_SEED_CACHE`) for a stack that is not ephemeral, none for one that is.
   */
  seedCache?: string | false;
  /**
   * Schemas to prepare (roles and migrations) besides those of the services the stack starts: for a
   * test that runs a service in its own process (infra/testing/service.ts).
   */
  schemas?: readonly AreaService[];
  /** Start a local redis-server and pass its URL as REDIS_URL (ignored when `redisUrl` is given). */
  redis?: boolean;
  /** Extra environment for every process (e.g. GANTRY_ADMIN_KEY, RATE_LIMIT_DEFAULT). Wins over ours. */
  env?: Record<string, string | undefined>;
  /** Area services to start. Default: every service whose `services/<name>/src/main.ts` exists. */
  services?: readonly AreaService[];
  /** How many gateways to start (default 1; 0 for none). */
  gateways?: number;
  /**
   * Processes per area service (default 1). Replica k > 1 runs as `<service>-k` on a port of its
   * own with the same environment, and the service's `*_ADDR` becomes the comma-separated list of
   * every replica's `host:port`, which callers' gRPC clients rotate over.
   */
  replicas?: Partial<Record<AreaService, number>>;
  /** Don't echo process output (it is still captured for `logs()`). */
  quiet?: boolean;
  /** Receives every output line instead of the default echo (`name | line`). */
  onLine?: LineHandler;
  /** Restart crashed processes (default true). */
  restart?: boolean;
  /** LOG_LEVEL for every process (default: env LOG_LEVEL, else "info"). */
  logLevel?: string;
  /** How long each process may take to become healthy (default 60 s). */
  healthTimeoutMs?: number;
  /** Aborting it while the stack starts stops what was started and rejects. */
  signal?: AbortSignal;
  /**
   * Ask each area service for its usual port first (keys 50051 …), falling back to any free one when
   * it is taken. Default: when not ephemeral. Either way the addresses handed on are the ones bound.
   */
  preferServicePorts?: boolean;
}

export interface Stack {
  /** URL of the first gateway, e.g. `http://127.0.0.1:8080` (empty when no gateway runs). */
  baseUrl: string;
  /** URLs of all gateways, in order (`gateway`, `gateway-2`, …). */
  gatewayUrls: string[];
  /**
   * The environment shared by all processes (NATS_URL, REDIS_URL, every *_ADDR, LOG_LEVEL, plus
   * `env`), and DATABASE_URL: with a local Postgres that is the superuser's URL, which no process
   * gets (tests use it to set up and inspect data); each service gets its own in `databaseUrls`.
   */
  env: Record<string, string>;
  /**
   * Each prepared schema's service login (`postgres://gantry_<service>:…`): the DATABASE_URL its
   * service gets. Empty when the stack was given `databaseUrl` (every service then gets that URL).
   */
  databaseUrls: Partial<Record<AreaService, string>>;
  /** Where local dependency data lives. */
  dataDir: string;
  /**
   * The local Postgres cluster's directory when this stack started one: `<dataDir>/postgres`, or a
   * directory under /var/tmp when the `postgres` user cannot reach `dataDir` (a private home).
   */
  postgresDir?: string;
  /**
   * Names of the managed processes (`postgres`, `nats`, `redis`, services and their replicas
   * (`workspace`, `workspace-2`, …), `gateway`, `gateway-2`, …).
   */
  names: () => string[];
  /** Everything the processes (and the runner) printed, one `name | line` per line. */
  logs: () => string;
  /** Subscribe to output lines as they arrive; returns an unsubscribe function. */
  onLine: (fn: LineHandler) => () => void;
  /** Stop one process on purpose (it is not restarted). Works for dependencies too. */
  stopService: (name: string) => Promise<void>;
  /** Start a stopped process again (same port, same data). Does not wait for health. */
  startService: (name: string) => Promise<void>;
  /** Wait until a process is healthy (default timeout 60 s). */
  waitHealthy: (name: string, timeoutMs?: number) => Promise<void>;
  /** PID of a running process, if any. */
  pid: (name: string) => number | undefined;
  /** Send a signal (default SIGKILL) to a process, as a crash would; the supervisor restarts it. */
  kill: (name: string, signal?: NodeJS.Signals) => boolean;
  /** How many times a process exited without being asked to. */
  crashes: (name: string) => number;
  /** Stop everything: gateways, services, then dependencies. Idempotent. */
  stop: () => Promise<void>;
}

const SERVICE_NAMES = AREA_SERVICES.map((s) => s.name);

/** Process names of a service's replicas: `workspace`, `workspace-2`, … */
function replicaNames(service: AreaService, count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? service : `${service}-${i + 1}`));
}

/** Services that start headless Chromium (kit/src/chromium.ts). */
const BROWSER_SERVICES: ReadonlySet<AreaService> = new Set(["web", "content"]);

/** Preferred local ports of the dependencies for `npm start` (any free port when taken). */
const DEP_PORTS = { postgres: 54320, nats: 4222, redis: 6379 };

function mainExists(rel: string): boolean {
  return fs.existsSync(path.join(REPO_ROOT, rel));
}

/**
 * V8's compile cache (NODE_COMPILE_CACHE) for every Node process: it roughly halves module loading,
 * and a process whose TypeScript files are all in it never loads Node's type stripper (≈ 15 MiB).
 */
export const COMPILE_CACHE_DIR = path.join(REPO_ROOT, ".gantry", "compile-cache");

/**
 * Every input schema compiled once per catalogue, for every service and gateway process
 * (GANTRY_VALIDATOR_CACHE, kit/src/validation.ts): the gateway's start compiled all of them each time.
 */
export const VALIDATOR_CACHE_DIR = path.join(REPO_ROOT, ".gantry", "validators");

/**
 * Node options of every service and gateway process, before its main module (infra/README.md,
 * "Memory"; the image sets the same in `NODE_OPTIONS`): kit's `idle-memory.ts` runs a
 * memory-reducing garbage collection when the process goes quiet (it needs `--expose-gc`), which
 * gives back what start-up or a burst of load grew.
 *
 * A 16 MiB semi-space caps the young generation: on a machine with this much memory V8 lets it grow
 * to 64 MiB per semi-space, and node:http2 keeps a fifth of what a call allocates past the next
 * scavenge, so each scavenge copied megabytes and paused the process long enough to show in the p99.
 * With 16 MiB the pauses are shorter and a busy process holds less, at the same CPU per call
 * (docs/benchmarks.md, *Findings, fourth pass*, *The young generation*).
 */
export const NODE_PROCESS_ARGS: readonly string[] = [
  "--expose-gc",
  "--max-semi-space-size=16",
  `--import=${pathToFileURL(path.join(REPO_ROOT, "kit", "src", "idle-memory.ts")).href}`,
];

/**
 * Environment of every service and gateway process, under what the caller sets (infra/README.md,
 * "Memory"). glibc gives each thread that allocates an arena of its own (up to eight per core) and
 * seldom returns what one held after a burst: with two, the sentence model's worker gives back its
 * ≈ 85 MiB when it ends (instead of ≈ 30), and the idle stack holds ≈ 20 MiB less. No difference in
 * CPU per call was measurable (contact.get through the chain).
 */
export const NODE_PROCESS_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

/** Environment inherited by children: ours, minus what only makes sense for this process. */
function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  env.NODE_COMPILE_CACHE ??= COMPILE_CACHE_DIR;
  // kit/src/validation.ts's VALIDATOR_CACHE_ENV, by name: importing it would load the catalogue and Ajv here.
  env.GANTRY_VALIDATOR_CACHE ??= VALIDATOR_CACHE_DIR;
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_CHANNEL_FD;
  delete env.NODE_UNIQUE_ID;
  return env;
}

/** True when the `postgres` user (root case) can reach `dir`: every ancestor must be world-searchable. */
function reachableByOthers(dir: string): boolean {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return true;
  return searchableByOthers(dir);
}

function defaultEcho(width: number): LineHandler {
  return (proc, line) => {
    process.stdout.write(`${proc.padEnd(width)} | ${line}\n`);
  };
}

/** Start a local Gantry; see {@link StackOptions}. Rejects (after cleaning up) when a process is not healthy in time. */
export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const ephemeral = opts.ephemeral ?? opts.port === 0;
  const restart = opts.restart ?? true;
  const healthTimeoutMs = opts.healthTimeoutMs ?? 60_000;
  const logLevel = opts.logLevel ?? process.env.LOG_LEVEL ?? "info";

  const services = [...(opts.services ?? SERVICE_NAMES.filter((n) => mainExists(`services/${n}/src/main.ts`)))];
  for (const name of services) {
    if (!SERVICE_NAMES.includes(name))
      throw new Error(`unknown service '${name}' (known: ${SERVICE_NAMES.join(", ")})`);
    if (!mainExists(`services/${name}/src/main.ts`))
      throw new Error(`service '${name}' has no services/${name}/src/main.ts yet`);
  }
  const replicaCount = new Map<AreaService, number>();
  for (const [name, n] of Object.entries(opts.replicas ?? {}) as Array<[AreaService, number | undefined]>) {
    if (n === undefined) continue;
    if (!services.includes(name)) throw new Error(`replicas: '${name}' is not a service this stack starts`);
    if (!Number.isInteger(n) || n < 1) throw new Error(`replicas: '${name}' needs a whole number ≥ 1 (got ${n})`);
    replicaCount.set(name, n);
  }
  const serviceProcs = services.flatMap((s) => replicaNames(s, replicaCount.get(s) ?? 1));
  const gatewayCount = opts.gateways ?? (mainExists("gateway/src/main.ts") ? 1 : 0);
  if (gatewayCount > 0 && !mainExists("gateway/src/main.ts")) throw new Error("gateway/src/main.ts does not exist yet");

  const width = Math.max(8, ...serviceProcs.map((s) => s.length), gatewayCount > 1 ? 9 : 7);
  const sink = new LogSink(opts.onLine ?? (opts.quiet ? undefined : defaultEcho(width)));
  const note = (line: string) => sink.write("runner", line);
  const watchdog = new Watchdog();
  const procs = new Map<string, ManagedProcess>();
  const probes: Array<{ close(): void }> = [];
  const ports: number[] = [];
  const port = async (preferred: number, prefer = !ephemeral) => {
    const p = await pickPort(prefer ? preferred : 0);
    ports.push(p);
    return p;
  };

  let tempDir: string | undefined;
  const cleanup: string[] = [];
  let dataDir: string;
  if (opts.dataDir) dataDir = path.resolve(opts.dataDir);
  else if (ephemeral) dataDir = tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-stack-"));
  else dataDir = path.join(REPO_ROOT, ".gantry");
  fs.mkdirSync(dataDir, { recursive: true });
  if (typeof process.getuid === "function" && process.getuid() === 0) {
    // Postgres runs as the `postgres` user and must be able to pass through (not list) the data dir.
    const mode = fs.statSync(dataDir).mode & 0o7777;
    if ((mode & 0o011) !== 0o011) fs.chmodSync(dataDir, mode | 0o011);
  }

  if (tempDir) {
    cleanup.push(tempDir);
    watchdog.addDir(tempDir);
  }

  const killAll = () => {
    for (const p of procs.values()) p.killNow();
  };
  process.on("exit", killAll);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      const tiers = [
        [...procs.values()].filter((p) => p.name.startsWith("gateway")),
        [...procs.values()].filter((p) => serviceProcs.includes(p.name)),
        [...procs.values()].filter((p) => ["redis", "nats", "postgres"].includes(p.name)),
      ];
      for (const tier of tiers) await Promise.all(tier.map((p) => p.stop()));
      for (const probe of probes) probe.close();
      process.removeListener("exit", killAll);
      for (const p of ports) releasePort(p);
      for (const dir of cleanup) {
        fs.rmSync(dir, { recursive: true, force: true });
        watchdog.removeDir(dir);
      }
      watchdog.close();
    })();
    return stopped;
  };

  const add = (spec: ProcessSpec) => {
    if (stopped) throw new Error("start-up aborted");
    const proc = new ManagedProcess({ restart, ...spec }, sink, watchdog);
    procs.set(spec.name, proc);
    proc.start();
    return proc;
  };

  const onAbort = () => {
    note("start-up interrupted; stopping");
    void stop();
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    if (opts.signal?.aborted) throw new Error("start-up aborted");
    // Gateway ports first: a taken PORT should fail before anything starts.
    const gatewayPorts: number[] = [];
    for (let i = 0; i < gatewayCount; i++) {
      const wanted = i === 0 ? (opts.port ?? (ephemeral ? 0 : GATEWAY_DEFAULT_PORT)) : 0;
      if (wanted === 0) {
        gatewayPorts.push(await port(0));
        continue;
      }
      const got = await pickPort(wanted);
      if (got !== wanted) {
        releasePort(got);
        throw new Error(`port ${wanted} is already in use: set PORT to another port (PORT=0 picks a free one)`);
      }
      ports.push(got);
      gatewayPorts.push(got);
    }

    // ---- dependencies -------------------------------------------------------------------
    const deps: Promise<void>[] = [];
    // Each on a picked port, and on another when it lost that one before binding it.
    const started = { add, sink, wait: { timeoutMs: healthTimeoutMs, failAfterExits: 1 } };
    let databaseUrl = opts.databaseUrl ?? "";
    let postgresDir: string | undefined;
    let localPostgres = false;
    let natsUrl = opts.natsUrl ?? "";
    const natsAuth = !opts.natsUrl && (opts.natsAuth ?? true);
    // One login per process kind (replicas of a service share theirs), and the runner's own.
    const natsLogins = natsAuth
      ? storedPasswords(dataDir, "nats-users", ["runner", "gateway", ...SERVICE_NAMES])
      : new Map<string, string>();
    const natsUrlFor = (user: string) => {
      const password = natsLogins.get(user);
      return password ? natsUrl.replace("nats://", `nats://${user}:${password}@`) : natsUrl;
    };
    let redisUrl = opts.redisUrl ?? "";

    // The schemas of a local Postgres: each gets its roles and migrations below.
    const schemas = [...new Set([...services, ...(opts.schemas ?? [])])].filter(
      (s) => AREA_SERVICES.find((a) => a.name === s)?.database,
    );
    const seedCache = opts.seedCache ?? (ephemeral ? undefined : defaultSeedCache());
    if (!databaseUrl) {
      deps.push(
        (async () => {
          let clusterDir = path.join(dataDir, "postgres");
          postgresDir = clusterDir;
          if (!reachableByOthers(clusterDir)) {
            const hash = crypto.createHash("sha256").update(clusterDir).digest("hex").slice(0, 12);
            clusterDir = path.join("/var/tmp", `gantry-${hash}`, "postgres");
            postgresDir = clusterDir;
            fs.mkdirSync(path.dirname(clusterDir), { recursive: true });
            if (ephemeral) {
              cleanup.push(path.dirname(clusterDir));
              watchdog.addDir(path.dirname(clusterDir));
            }
            note(`${dataDir} is not reachable by the 'postgres' user; keeping the cluster in ${clusterDir}`);
          }
          if (seedCache && !fs.existsSync(path.join(clusterDir, "PG_VERSION"))) {
            try {
              await seedCluster({ dir: clusterDir, cacheDir: seedCache, schemas, log: note, watchdog });
            } catch (err) {
              note(`could not make the cluster from this machine's copy (${(err as Error).message}); initialising it`);
            }
          }
          let prepared: Awaited<ReturnType<typeof preparePostgres>> | undefined;
          // Probed only once this postmaster said it is ready: probing earlier makes Postgres log
          // a FATAL "the database system is starting up" line per attempt.
          await startOnPickedPort({
            name: "postgres",
            pick: () => port(DEP_PORTS.postgres),
            spec: async (pgPort) => {
              prepared = await preparePostgres({
                dir: clusterDir,
                port: pgPort,
                durable: !ephemeral,
                password: localMasterKey(dataDir, "postgres-password"),
                log: note,
              });
              return prepared.spec;
            },
            readyLine: "database system is ready to accept connections",
            ...started,
          });
          if (!prepared) throw new Error("postgres started without its settings");
          await adoptPassword(prepared.adminUrl, note, clusterDir);
          await ensureDatabase(prepared.adminUrl);
          databaseUrl = prepared.url;
          localPostgres = true;
        })(),
      );
    }
    if (!natsUrl) {
      deps.push(
        (async () => {
          const bin = await findNatsServer(note);
          const storeDir = path.join(dataDir, "nats");
          fs.mkdirSync(storeDir, { recursive: true });
          const config: string[] = [];
          if (natsAuth) {
            // In a file only the runner's user reads: passwords on the command line show in `ps`.
            const file = path.join(dataDir, "nats.conf");
            fs.writeFileSync(file, natsConfig(natsLogins), { mode: 0o600 });
            fs.chmodSync(file, 0o600);
            config.push("-c", file);
          }
          const { port: natsPort } = await startOnPickedPort({
            name: "nats",
            pick: () => port(DEP_PORTS.nats),
            spec: (natsPort) => ({
              name: "nats",
              command: bin,
              args: [...config, "-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", String(natsPort)],
              env: baseEnv(),
              endpoint: `nats 127.0.0.1:${natsPort}`,
              health: () => tcpOpen(natsPort),
            }),
            readyLine: "Server is ready",
            ...started,
          });
          natsUrl = `nats://127.0.0.1:${natsPort}`;
        })(),
      );
    }
    if (!redisUrl && opts.redis) {
      deps.push(
        (async () => {
          const bin = findRedisServer();
          // Hex: nothing in it needs escaping in the ACL line or the URL.
          const password = Buffer.from(localMasterKey(dataDir, "redis-password"), "base64").toString("hex");
          // In a file only the runner's user reads, not on the command line, which every local
          // user sees in `ps`.
          const config = path.join(dataDir, "redis.conf");
          fs.writeFileSync(config, redisConfig(password), { mode: 0o600 });
          fs.chmodSync(config, 0o600);
          const { port: redisPort } = await startOnPickedPort({
            name: "redis",
            pick: () => port(DEP_PORTS.redis),
            spec: (redisPort) => ({
              name: "redis",
              command: bin,
              args: [
                config,
                "--port",
                String(redisPort),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dataDir,
              ],
              env: baseEnv(),
              endpoint: `redis 127.0.0.1:${redisPort}`,
              health: () => tcpOpen(redisPort),
            }),
            readyLine: "Ready to accept connections",
            ...started,
          });
          redisUrl = `redis://${REDIS_GATEWAY_USER}:${password}@127.0.0.1:${redisPort}`;
        })(),
      );
    }
    const depResults = await Promise.allSettled(deps);
    const depFailure = depResults.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (depFailure) throw depFailure.reason;

    // ---- database roles and migrations --------------------------------------------------
    // A local Postgres: each service's schema gets an owner role, which applies the migrations
    // here, and a login of the service's own, which is all the service receives (SECURITY.md).
    const databaseUrls: Partial<Record<AreaService, string>> = {};
    if (localPostgres) {
      const roles = schemaRoles(dataDir, schemas);
      const logins = await prepareLocalSchemas(databaseUrl, roles, note);
      for (const [schema, url] of logins) databaseUrls[schema as AreaService] = url;
    }

    // ---- shared environment -------------------------------------------------------------
    // One port per replica; a service this stack does not start keeps one address all the same.
    const grpcPorts = new Map<AreaService, number[]>();
    const preferServicePorts = opts.preferServicePorts ?? !ephemeral;
    for (const s of AREA_SERVICES) {
      const ports = [await port(s.defaultPort, preferServicePorts)];
      for (let i = 1; i < (replicaCount.get(s.name) ?? 1); i++) ports.push(await port(0));
      grpcPorts.set(s.name, ports);
    }
    const shared: Record<string, string> = {
      NATS_URL: natsUrlFor("runner"),
      LOG_LEVEL: logLevel,
    };
    if (redisUrl) shared.REDIS_URL = redisUrl;
    // An external Postgres is every process's, as given; a local one's superuser is nobody's.
    if (!localPostgres) shared.DATABASE_URL = databaseUrl;
    for (const s of AREA_SERVICES)
      shared[s.addrEnv] = grpcPorts
        .get(s.name)!
        .map((p) => `127.0.0.1:${p}`)
        .join(",");
    // The connections service refuses to start without a master key outside development and test;
    // a local stack gets one of its own, kept with its data so stored credentials stay readable.
    if (!process.env.CONNECTIONS_MASTER_KEY && !opts.env?.CONNECTIONS_MASTER_KEY)
      shared.CONNECTIONS_MASTER_KEY = localMasterKey(dataDir);
    // Likewise the trust service's receipt-signing key: kept with the data, so receipts the stack
    // signed stay verifiable across restarts.
    if (!process.env.TRUST_SIGNING_KEY && !opts.env?.TRUST_SIGNING_KEY)
      shared.TRUST_SIGNING_KEY = localMasterKey(dataDir, "trust-signing-key");
    // And the keys that sign download and screenshot links, so links survive a restart, and the
    // master secret of internal call authentication (kit/call-auth), from which every process
    // derives its caller→service keys: no service starts without it.
    for (const [variable, file] of [
      ["CONTENT_SIGNING_KEY", "content-signing-key"],
      ["WEB_SIGNING_KEY", "web-signing-key"],
      ["GANTRY_CALL_KEY", "call-key"],
    ] as const)
      if (!process.env[variable] && !opts.env?.[variable]) shared[variable] = localMasterKey(dataDir, file);
    for (const [k, v] of Object.entries(opts.env ?? {})) {
      if (v === undefined) delete shared[k];
      else shared[k] = v;
    }
    const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
      const env: NodeJS.ProcessEnv = { ...NODE_PROCESS_ENV, ...baseEnv(), ...shared, ...extra };
      for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete env[k];
      if (!redisUrl) delete env.REDIS_URL;
      return env;
    };

    // ---- area services ------------------------------------------------------------------
    if (services.includes("connections")) await ensureDirectory(childEnv({}), note);
    // The services that start a browser get its sandbox unless it cannot run here.
    const browserEnv: Record<string, string> = {};
    if (
      services.some((s) => BROWSER_SERVICES.has(s)) &&
      process.env[CHROMIUM_NO_SANDBOX_ENV] === undefined &&
      opts.env?.[CHROMIUM_NO_SANDBOX_ENV] === undefined
    ) {
      const refusal = await chromiumSandboxRefusal();
      if (refusal) {
        browserEnv[CHROMIUM_NO_SANDBOX_ENV] = "1";
        note(`Chromium's sandbox is off for web and content: ${refusal} (${CHROMIUM_NO_SANDBOX_ENV}=1)`);
      }
    }
    // Bind first, then tell: each replica reports the port it bound (bound-ports.ts); only those
    // addresses reach the other services and the gateway.
    const runDir = path.join(dataDir, "run");
    fs.mkdirSync(runDir, { recursive: true });
    const bound = new Map<string, BoundPort>();
    const serviceEnv = (service: AreaService, grpcPort: number) =>
      childEnv({
        ...(BROWSER_SERVICES.has(service) ? browserEnv : {}),
        NATS_URL: natsUrlFor(service),
        GRPC_PORT: String(grpcPort),
        ...(databaseUrls[service] ? { DATABASE_URL: databaseUrls[service] } : {}),
      });
    for (const service of services) {
      const grpcPortList = grpcPorts.get(service)!;
      for (const [i, name] of replicaNames(service, grpcPortList.length).entries()) {
        const b = new BoundPort(name, path.join(runDir, `${name}.port`), serviceEnv(service, grpcPortList[i]));
        bound.set(name, b);
        probes.push(b);
        sink.subscribe((proc, line) => proc === name && b.onLine(line));
        add({
          name,
          command: process.execPath,
          args: [...NODE_PROCESS_ARGS, `services/${service}/src/main.ts`],
          cwd: REPO_ROOT,
          env: b.env,
          endpoint: `gRPC health at the port ${name} reports binding (asked for ${grpcPortList[i] || "any"})`,
          health: () => b.healthy(),
        });
      }
    }
    // ---- gateways -----------------------------------------------------------------------
    // Started with the services, not after them: a gateway's start (imports, every input schema
    // compiled) takes seconds of CPU that need no service, and it calls none before its first
    // request; its health waits for every service. Restarted below if a service's port moved.
    const gatewayUrls: string[] = [];
    const gatewayNames: string[] = [];
    const gatewayEnvs: Array<[string, NodeJS.ProcessEnv]> = [];
    for (let i = 0; i < gatewayCount; i++) {
      const name = i === 0 ? "gateway" : `gateway-${i + 1}`;
      const gwPort = gatewayPorts[i];
      const url = `http://127.0.0.1:${gwPort}`;
      gatewayUrls.push(url);
      gatewayNames.push(name);
      const env = childEnv({ PORT: String(gwPort), NATS_URL: natsUrlFor("gateway") });
      gatewayEnvs.push([name, env]);
      add({
        name,
        command: process.execPath,
        args: [...NODE_PROCESS_ARGS, "gateway/src/main.ts"],
        cwd: REPO_ROOT,
        env,
        endpoint: `${url}/health (every service of this stack SERVING)`,
        health: () => gatewayReady(url, services),
      });
    }
    await waitAll(
      serviceProcs.map((n) => procs.get(n)!),
      healthTimeoutMs,
    );
    // A replica that had to take another port than the one announced: every service learns the
    // addresses actually bound (a restart), then the gateway gets them.
    for (let round = 0; ; round++) {
      let moved = false;
      for (const service of services) {
        const actual = replicaNames(service, grpcPorts.get(service)!.length).map((n) => bound.get(n)!.port!);
        if (actual.join() === grpcPorts.get(service)!.join()) continue;
        grpcPorts.set(service, actual);
        shared[AREA_SERVICES.find((s) => s.name === service)!.addrEnv] = actual.map((p) => `127.0.0.1:${p}`).join(",");
        moved = true;
      }
      if (!moved) break;
      if (round >= 3) throw new Error("service ports kept moving while the stack started; is another stack starting?");
      note("a service port was taken by another process; restarting the services with the addresses bound");
      await Promise.all([
        ...serviceProcs.map(async (name) => {
          const b = bound.get(name)!;
          for (const s of AREA_SERVICES) b.env[s.addrEnv] = shared[s.addrEnv];
          await procs.get(name)!.stop();
          procs.get(name)!.start();
        }),
        ...gatewayEnvs.map(async ([name, env]) => {
          for (const s of AREA_SERVICES) env[s.addrEnv] = shared[s.addrEnv];
          await procs.get(name)!.stop();
          procs.get(name)!.start();
        }),
      ]);
      await waitAll(
        serviceProcs.map((n) => procs.get(n)!),
        healthTimeoutMs,
      );
    }

    await waitAll(
      gatewayNames.map((n) => procs.get(n)!),
      healthTimeoutMs,
    );

    opts.signal?.removeEventListener("abort", onAbort);
    if (stopped) throw new Error("start-up aborted");

    const get = (name: string): ManagedProcess => {
      const p = procs.get(name);
      if (!p) throw new Error(`no process '${name}' in this stack (have: ${[...procs.keys()].join(", ")})`);
      return p;
    };

    return {
      baseUrl: gatewayUrls[0] ?? "",
      gatewayUrls,
      env: { ...shared, DATABASE_URL: databaseUrl },
      databaseUrls,
      dataDir,
      postgresDir,
      names: () => [...procs.keys()],
      logs: () => sink.text(),
      onLine: (fn) => sink.subscribe(fn),
      stopService: async (name) => {
        const p = get(name);
        note(`stopping ${name}`);
        await p.stop();
      },
      startService: async (name) => {
        const p = get(name);
        note(`starting ${name}`);
        p.start();
      },
      waitHealthy: (name, timeoutMs) => get(name).waitHealthy({ timeoutMs: timeoutMs ?? healthTimeoutMs }),
      pid: (name) => get(name).pid,
      kill: (name, signal = "SIGKILL") => get(name).signal(signal),
      crashes: (name) => get(name).crashes,
      stop,
    };
  } catch (err) {
    opts.signal?.removeEventListener("abort", onAbort);
    const aborted = opts.signal?.aborted;
    await stop();
    throw aborted ? new Error("start-up aborted") : err;
  }
}

/** A key of the local stack (`<dataDir>/<name>`: base64 of 32 random bytes, made once, mode 0600): the connections master key, the trust, content and web signing keys, the call-authentication master. */
function localMasterKey(dataDir: string, name = "connections-master-key"): string {
  const file = path.join(dataDir, name);
  try {
    const existing = fs.readFileSync(file, "utf8").trim();
    if (existing) return existing;
  } catch {
    // not made yet
  }
  const key = crypto.randomBytes(32).toString("base64");
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * The owner and service roles of each schema, with passwords made at first start and kept in
 * `<dataDir>/postgres-roles` (JSON, mode 0600) so they survive restarts.
 */
function schemaRoles(dataDir: string, schemas: readonly string[]): Map<string, SchemaRoles> {
  const names = schemas.map((schema) => [schema, schemaRoleNames(schema)] as const);
  const passwords = storedPasswords(
    dataDir,
    "postgres-roles",
    names.flatMap(([, n]) => [n.owner, n.service]),
  );
  return new Map(
    names.map(([schema, n]) => [
      schema,
      {
        owner: { name: n.owner, password: passwords.get(n.owner)! },
        service: { name: n.service, password: passwords.get(n.service)! },
      },
    ]),
  );
}

/**
 * A password for each of `names`, made at first need and kept in `<dataDir>/<file>` (JSON, mode
 * 0600) so it survives restarts; the file keeps names it was not asked for this time.
 */
function storedPasswords(dataDir: string, file: string, names: readonly string[]): Map<string, string> {
  const at = path.join(dataDir, file);
  let passwords: Record<string, string> = {};
  try {
    passwords = JSON.parse(fs.readFileSync(at, "utf8")) as Record<string, string>;
  } catch {
    // not made yet
  }
  let changed = false;
  for (const name of names) {
    if (passwords[name]) continue;
    passwords[name] = crypto.randomBytes(24).toString("base64url");
    changed = true;
  }
  if (changed) {
    // Written whole under another name, then renamed: a concurrent reader never sees half a file.
    const tmp = `${at}.${process.pid}`;
    fs.writeFileSync(tmp, `${JSON.stringify(passwords, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, at);
  }
  return new Map(names.map((name) => [name, passwords[name]]));
}

/** The subjects each process kind publishes on (kit/src/nats.ts STREAMS and SUBJECTS): no one else may. */
export const NATS_PUBLISHES: Readonly<Record<string, readonly string[]>> = {
  gateway: ["audit.>"],
  keys: ["keys.>"],
  connections: ["connections.>"],
  memory: ["memory.>"],
  payments: ["payments.>"],
  workspace: ["events.>", "workflows.>"],
};

/** The JetStream streams each process kind declares at start (`ensureStream`): no one else may create or change them. */
export const NATS_STREAMS: Readonly<Record<string, readonly string[]>> = {
  gateway: ["AUDIT"],
  keys: ["AUDIT", "KEYS"],
  connections: ["CONNECTIONS"],
  memory: ["LESSONS"],
  payments: ["PAYMENTS"],
  workspace: ["EVENTS", "WORKFLOWS"],
};

/** The streams each process kind reads, through its durable consumers: no one else may read them. */
export const NATS_READS: Readonly<Record<string, readonly string[]>> = {
  keys: ["AUDIT"],
  memory: ["LESSONS"],
  workspace: ["WORKFLOWS"],
};

/** The subjects each process kind subscribes to directly (kit/src/nats.ts SUBJECTS), besides its own inbox. */
export const NATS_SUBSCRIBES: Readonly<Record<string, readonly string[]>> = {
  gateway: ["keys.key.*"],
  memory: ["memory.partition.changed"],
};

/**
 * The local nats-server's logins: `runner` (the runner and tests: everything) and one per process
 * kind (JetStream's API is subjects too), which may
 * - publish anywhere but on another area's subjects, and not create, change, purge or delete a
 *   stream that is not its own;
 * - read no stream but its own consumers' (no consumer, message get or direct get on the others);
 * - subscribe only to its own inbox (`_INBOX.<user>.>`: kit/src/nats.ts gives each login its inbox
 *   prefix, so no one can listen to another's replies) and the subjects of NATS_SUBSCRIBES.
 */
export function natsConfig(logins: ReadonlyMap<string, string>): string {
  const allStreams = [...new Set(Object.values(NATS_STREAMS).flat())].sort();
  const users = [...logins].map(([user, password]) => {
    if (user === "runner") return `    { user: "runner", password: "${password}" }`;
    const others = Object.entries(NATS_PUBLISHES)
      .filter(([owner]) => owner !== user)
      .flatMap(([, subjects]) => subjects);
    const own = new Set(NATS_STREAMS[user] ?? []);
    const reads = new Set(NATS_READS[user] ?? []);
    const deny = [
      ...others,
      ...allStreams
        .filter((s) => !own.has(s))
        .flatMap((s) => [`$JS.API.STREAM.CREATE.${s}`, `$JS.API.STREAM.UPDATE.${s}`]),
      "$JS.API.STREAM.DELETE.>",
      "$JS.API.STREAM.PURGE.>",
      "$JS.API.STREAM.MSG.DELETE.>",
      ...allStreams
        .filter((s) => !reads.has(s))
        .flatMap((s) => [
          `$JS.API.CONSUMER.*.${s}`,
          `$JS.API.CONSUMER.*.${s}.>`,
          `$JS.API.CONSUMER.*.*.${s}.>`,
          `$JS.API.STREAM.MSG.GET.${s}`,
          `$JS.API.DIRECT.GET.${s}`,
          `$JS.API.DIRECT.GET.${s}.>`,
        ]),
    ];
    const subscribe = [`_INBOX.${user}.>`, ...(NATS_SUBSCRIBES[user] ?? [])];
    return `    { user: "${user}", password: "${password}", permissions: { publish: { allow: [">"], deny: ${JSON.stringify(deny)} }, subscribe: { allow: ${JSON.stringify(subscribe)} } } }`;
  });
  return ["authorization {", "  users: [", users.join(",\n"), "  ]", "}", ""].join("\n");
}

/** The Redis user the gateways log in as (the only one: the `default` user is off). */
export const REDIS_GATEWAY_USER = "gateway";

/**
 * The local Redis's ACL: no `default` user, so a client that does not log in can do nothing, and
 * one user for the gateways that may run the rate-limit script (gateway/src/rate-limit/redis.ts:
 * INCR, PEXPIRE, PTTL on `gantry:rl:*`) and what ioredis sends to connect, nothing else: no other
 * keys, no CONFIG, FLUSHALL, KEYS or MODULE, no channels.
 */
export function redisConfig(password: string): string {
  const commands = [
    "+incr",
    "+pexpire",
    "+pttl",
    "+eval",
    "+evalsha",
    "+script|load",
    "+script|exists",
    "+ping",
    "+info",
    "+hello",
    "+auth",
    "+client|setname",
    "+select",
    "+quit",
  ];
  return [
    "user default off resetkeys resetchannels -@all",
    `user ${REDIS_GATEWAY_USER} on >${password} resetkeys ~gantry:rl:* resetchannels -@all ${commands.join(" ")}`,
    "",
  ].join("\n");
}

/** Wait for all processes to be healthy; the first failure wins (its message names the process). */
async function waitAll(list: ManagedProcess[], timeoutMs: number): Promise<void> {
  await Promise.all(list.map((p) => p.waitHealthy({ timeoutMs, failAfterExits: 5 })));
}
