/**
 * @module infra/runner/seed-cluster
 * A new local cluster copied from one kept per machine instead of made from nothing. `initdb` and
 * every migration were most of an empty data directory's start (docs/benchmarks.md, *Cold start*);
 * copying a 50 MB directory is a fraction of a second. The copy is a cluster that was initialised
 * exactly as {@link initCluster} does, had each schema's roles and migrations applied exactly as
 * every start does (./schemas.ts), and was then shut down cleanly.
 *
 * The cache entry's name is a hash of what decides that state ({@link seedKey}): the Postgres
 * binaries' version, how initdb runs, the `postgres` user's uid, each schema's name, kit tables and
 * migration files (names and contents), and the code that applies roles and migrations — not the
 * rest of the kit, so editing the kit's runtime code keeps the machine's entry. A new or edited
 * migration, or a new Postgres, is a new entry, built at the first start that needs it (which
 * then takes one more server start and stop than without the cache). Only the newest entry is kept.
 * Whatever the entry holds, every start still provisions the roles and applies pending migrations
 * as before, so it can never serve less than the migrations the start finds.
 *
 * An entry or spare copy is published by a rename only once its files are on disk, and carries a
 * marker ({@link COMPLETE}) written after them: a crash part-way through a copy leaves a directory
 * without the marker, which is never used, and whose leftovers the next start removes.
 *
 * Copies share what `initdb` makes once per cluster: the system identifier and the WAL timeline.
 * Nothing in a local stack reads them (no replication, no backups across clusters). The superuser
 * password the entry was built with travels in the copy ({@link SEED_PASSWORD_FILE}) until the
 * first start sets the data directory's own; the roles' passwords are set at every start anyway.
 *
 * Local runner only (`npm start`; a stack given a `seedCache`); the chart's Postgres runs its own
 * initdb and migrations Jobs and never sees this.
 */
import { execFile, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { IDEMPOTENCY_TABLE_SQL } from "@gantry/kit/data/idempotency.ts";
import { kitTablesOf } from "@gantry/kit/migrate.ts";
import { type SchemaRoles, schemaRoleNames } from "@gantry/kit/postgres-roles.ts";
import { enforceTenantIsolation } from "@gantry/kit/tenancy.ts";
import { REPO_ROOT } from "./binaries.ts";
import { freePort } from "./ports.ts";
import {
  binaries,
  databaseUrl,
  ensureDatabase,
  INITDB_OPTIONS,
  type Ids,
  initCluster,
  type PgBinaries,
  PG_USER,
  pgReady,
  postgresUser,
  postgresVersion,
  SEED_PASSWORD_FILE,
  serverArgs,
} from "./postgres.ts";
import { migrationsDirOf, prepareLocalSchemas } from "./schemas.ts";
import type { Watchdog } from "./supervisor.ts";

const execFileP = promisify(execFile);

/** Set to a directory to keep seeds there, or to `off` to initialise every new cluster from nothing. */
export const SEED_CACHE_ENV = "GANTRY_POSTGRES_SEED_CACHE";

/**
 * Bumped when what an entry holds changes in a way the key's inputs would not show. 2: entries
 * carry {@link COMPLETE}; those from before were published unsynced and without it.
 */
const FORMAT = "2";

/**
 * Written in an entry or spare copy after every other file of it is on disk: only a directory
 * with it is used, so a copy a crash cut short is never taken for a cluster.
 */
const COMPLETE = "gantry-seed-complete";

/**
 * Whole files whose code decides an entry's state, each only about that: the migration runner
 * (bookkeeping table, order, kit tables), the schemas' roles and their grants, and the runner's
 * sequence of the two. Other kit code is in the key only as the parts below, so an edit of, say,
 * kit/src/data/* or the tenant pool keeps the machine's entry.
 */
const CODE_FILES = ["kit/src/migrate.ts", "kit/src/postgres-roles.ts", "infra/runner/schemas.ts"];

/** `npm start`'s cache: `$GANTRY_POSTGRES_SEED_CACHE`, else beside .ci/run's tools (`~/.cache/gantry/`). */
export function defaultSeedCache(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env[SEED_CACHE_ENV];
  if (set === "off") return undefined;
  if (set) return path.resolve(set);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "gantry", "postgres-seed");
}

export interface SeedOptions {
  /** The cluster directory to make; holds no cluster yet. */
  dir: string;
  /** Where the machine keeps its entries. */
  cacheDir: string;
  /** The schemas the stack prepares (their roles and migrations are in the entry). */
  schemas: readonly string[];
  /** Default: each service's `prisma/migrations`. */
  migrationsDir?: (schema: string) => string;
  log: (line: string) => void;
  /** Stops the build's server and removes its directory should the runner die meanwhile. */
  watchdog?: Watchdog;
}

/**
 * The entry's name for these schemas and binaries. `root` (default: this checkout) is where
 * {@link CODE_FILES} are read. Each input is here because a change of it changes the cluster an
 * entry build makes; a start applies only what is pending, so a stale entry would keep the old.
 */
export async function seedKey(
  bin: PgBinaries,
  ids: Ids,
  schemas: readonly string[],
  migrationsDir: (schema: string) => string,
  root = REPO_ROOT,
): Promise<string> {
  const hash = crypto.createHash("sha256");
  const part = (label: string, value: string | Buffer) => {
    hash.update(`${label}\0${value.length}\0`);
    hash.update(value);
  };
  part("format", FORMAT);
  // The catalog's format and every system object initdb makes.
  part("postgres", await postgresVersion(bin));
  // initdb's options and superuser, and what the build does around them (password file, server).
  part("initdb", `${INITDB_OPTIONS.join(" ")} ${PG_USER}`);
  part("build", `${initCluster}\n${buildSeed}`);
  // Owner of every file: a copy made for one uid cannot be run by another.
  part("uid", String(ids.uid ?? ""));
  for (const file of CODE_FILES) part(file, fs.readFileSync(path.join(root, file)));
  // Of the kit's other files, only what the migration step runs against the schemas: the
  // row-level security it enables, and the kit-owned table it creates.
  part("isolation", String(enforceTenantIsolation));
  part("idempotency", IDEMPOTENCY_TABLE_SQL);
  for (const schema of [...schemas].sort()) {
    part("schema", `${schema} ${JSON.stringify(kitTablesOf(schema))}`);
    const dir = migrationsDir(schema);
    let names: string[] = [];
    try {
      names = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    for (const name of names) part(name, fs.readFileSync(path.join(dir, name, "migration.sql")));
  }
  return hash.digest("hex").slice(0, 32);
}

/**
 * Makes the cluster in `opts.dir` from the cache's entry for these schemas, building the entry
 * first when there is none. Says which it did.
 */
export async function seedCluster(opts: SeedOptions): Promise<"copied" | "built"> {
  const bin = await binaries();
  const ids = await postgresUser();
  const migrationsDir = opts.migrationsDir ?? migrationsDirOf;
  const key = await seedKey(bin, ids, opts.schemas, migrationsDir);
  const entry = path.join(opts.cacheDir, key);
  removeDeadCopies(opts.cacheDir);
  fs.rmSync(opts.dir, { recursive: true, force: true });
  reachableParent(opts.dir, ids);
  const spare = `${entry}.spare`;
  if (complete(entry)) {
    try {
      // The spare copy, when one is ready and on the same filesystem: nothing to copy now.
      if (!complete(spare)) throw new Error("no spare copy ready");
      fs.renameSync(spare, opts.dir);
    } catch {
      const tmp = `${opts.dir}.copy-${process.pid}`;
      opts.watchdog?.addDir(tmp);
      try {
        await copyTree(entry, tmp);
        await handOver(tmp, opts.dir);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
        opts.watchdog?.removeDir(tmp);
      }
    }
    // A data directory, not a copy to take: the marker would say nothing there.
    fs.rmSync(path.join(opts.dir, COMPLETE), { force: true });
    refillSpare(entry, spare);
    opts.log(`made the Postgres cluster in ${opts.dir} from this machine's copy (${entry})`);
    return "copied";
  }
  // An entry without the marker was never published whole: built again below.
  fs.rmSync(entry, { recursive: true, force: true });
  const staging = `${opts.dir}.seed-${process.pid}`;
  opts.watchdog?.addDir(staging);
  try {
    await buildSeed(bin, ids, staging, opts, migrationsDir);
    fs.mkdirSync(opts.cacheDir, { recursive: true, mode: 0o700 });
    const tmp = path.join(opts.cacheDir, `.${key}.${process.pid}`);
    try {
      await copyTree(staging, tmp);
      await publish(tmp, entry);
      opts.log(`kept a copy of the new cluster in ${entry}: the next empty data directory starts from it`);
      for (const other of fs.readdirSync(opts.cacheDir))
        if (!other.startsWith(key) && !other.startsWith("."))
          fs.rmSync(path.join(opts.cacheDir, other), { recursive: true });
      refillSpare(entry, spare);
    } catch (err) {
      // Another runner kept its copy first, or the cache cannot be written: this start needs neither.
      opts.log(`could not keep a copy of the cluster in ${opts.cacheDir}: ${(err as Error).message}`);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    await handOver(staging, opts.dir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    opts.watchdog?.removeDir(staging);
  }
  return "built";
}

/** True when `dir` is an entry or spare copy published whole. */
function complete(dir: string): boolean {
  return fs.existsSync(path.join(dir, COMPLETE));
}

/**
 * Makes `tmp`, a finished copy, the cache's `dest`: its files on disk first (one syncfs of the
 * filesystem, cheaper than an fsync per file of ~1000), then the marker, then the rename. A crash
 * before the rename leaves only `tmp`, which {@link removeDeadCopies} removes.
 */
async function publish(tmp: string, dest: string): Promise<void> {
  await execFileP("sync", ["-f", tmp]);
  fs.writeFileSync(path.join(tmp, COMPLETE), "", { flush: true });
  await execFileP("sync", [tmp]);
  fs.renameSync(tmp, dest);
  await execFileP("sync", [path.dirname(dest)]);
}

/**
 * Makes `from`, a finished copy or a cluster built without fsync, the data directory `dir`, its
 * files on disk before Postgres starts on it: a clean start does not sync the directory, so after a
 * machine crash its files could be empty while the control file says clean, and every later start
 * would use that broken cluster. A spare copy needs none of this: {@link publish} synced it.
 */
async function handOver(from: string, dir: string): Promise<void> {
  await execFileP("sync", ["-f", from]);
  fs.renameSync(from, dir);
  await execFileP("sync", [path.dirname(dir)]);
}

/**
 * Removes copies into the cache that their process left part-way (`<key>.spare.<pid>` from
 * {@link refillSpare}, `.<key>.<pid>` from a build) when that process is gone: a spare copy killed
 * part-way is up to 50 MB that would otherwise stay until the next entry is built.
 */
function removeDeadCopies(cacheDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(cacheDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^(?:[0-9a-f]+\.spare|\.[0-9a-f]+)\.([0-9]+)$/.exec(name)?.[1];
    if (pid && !alive(Number(pid))) fs.rmSync(path.join(cacheDir, name), { recursive: true, force: true });
  }
}

/** Whether a process `pid` exists (EPERM: it does, and is another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Builds the entry for `schemas` when there is none and waits (up to `waitMs`) until its spare is
 * ready: the bench does this before it times an empty data directory's start, which is then the
 * start every later new directory gets (the build is once per set of migrations, measured apart).
 */
export async function warmSeed(
  cacheDir: string,
  schemas: readonly string[],
  log: (line: string) => void,
  waitMs = 120_000,
  migrationsDir: (schema: string) => string = migrationsDirOf,
): Promise<void> {
  const key = await seedKey(await binaries(), await postgresUser(), schemas, migrationsDir);
  const entry = path.join(cacheDir, key);
  // As a start does: a bench that only warms the cache must not keep a killed copy's 50 MB either.
  removeDeadCopies(cacheDir);
  if (!complete(entry)) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-seed-"));
    try {
      await seedCluster({ dir: path.join(dir, "postgres"), cacheDir, schemas, log, migrationsDir });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const spare = `${entry}.spare`;
  refillSpare(entry, spare);
  const deadline = Date.now() + waitMs;
  while (!complete(spare) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
}

/**
 * Makes the next spare copy of `entry` in the background, at the lowest CPU and I/O priority, so
 * the next new data directory takes it by a rename: copying 50 MB cost this machine's disk
 * seconds when other work was writing. It runs on after the runner exits; a spare another runner
 * made first wins, and a copy that fails leaves nothing. It is published as {@link publish} does
 * (files on disk, then the marker — the entry's own, copied with it, removed until then — then the
 * rename), so a spare killed or cut off by a crash part-way is never taken.
 */
function refillSpare(entry: string, spare: string): void {
  if (complete(spare)) return;
  fs.rmSync(spare, { recursive: true, force: true }); // one from before the marker
  const script = [
    'ionice -c 3 -p $$ 2>/dev/null; tmp="$2.$$"',
    'cp -a --reflink=auto "$1" "$tmp" && rm -f "$tmp/$3" && sync -f "$tmp" && : > "$tmp/$3" && sync "$tmp/$3" "$tmp" &&',
    'mv -T "$tmp" "$2" 2>/dev/null && sync "${2%/*}" || rm -rf "$tmp"',
  ].join("\n");
  const child = spawn("nice", ["-n", "19", "sh", "-c", script, "refill", entry, spare, COMPLETE], {
    detached: true,
    stdio: "ignore",
  });
  child.on("error", () => {}); // no spare: the next start copies
  child.unref();
}

/** As root, the `postgres` user must be able to pass through the cluster's parent directory. */
function reachableParent(dir: string, ids: Ids): void {
  const parent = path.dirname(dir);
  fs.mkdirSync(parent, { recursive: true });
  if (ids.uid === undefined) return;
  const mode = fs.statSync(parent).mode;
  if ((mode & 0o001) === 0) fs.chmodSync(parent, mode | 0o711);
}

/** `cp -a`: owners (the `postgres` user's, as root) and modes kept; a reflink where the filesystem has them. */
async function copyTree(from: string, to: string): Promise<void> {
  fs.rmSync(to, { recursive: true, force: true });
  await execFileP("cp", ["-a", "--reflink=auto", from, to]);
}

/** initdb, then the schemas' roles and migrations on a server of its own, stopped cleanly. */
async function buildSeed(
  bin: PgBinaries,
  ids: Ids,
  dir: string,
  opts: SeedOptions,
  migrationsDir: (schema: string) => string,
): Promise<void> {
  const password = crypto.randomBytes(24).toString("hex");
  fs.rmSync(dir, { recursive: true, force: true });
  await initCluster(bin, dir, password, ids, opts.log);
  fs.writeFileSync(path.join(dir, SEED_PASSWORD_FILE), `${password}\n`, { mode: 0o600 });
  opts.log(`applying the migrations to a new cluster for this machine's copy (once per set of migrations)`);
  await withServer(bin, ids, dir, password, opts.watchdog, async (superUrl, adminUrl) => {
    await ensureDatabase(adminUrl);
    // Throwaway role passwords: every start sets the data directory's own.
    const roles = new Map<string, SchemaRoles>(
      opts.schemas.map((schema) => {
        const names = schemaRoleNames(schema);
        const secret = () => crypto.randomBytes(24).toString("hex");
        return [
          schema,
          { owner: { name: names.owner, password: secret() }, service: { name: names.service, password: secret() } },
        ];
      }),
    );
    await prepareLocalSchemas(superUrl, roles, () => {}, migrationsDir);
  });
}

/**
 * Runs a server on `dir` (TCP on a free loopback port, no fsync: the directory is copied once it
 * stopped), calls `fn` with its superuser and maintenance URLs, then stops it with a fast shutdown,
 * which leaves the cluster clean (no recovery at the next start).
 */
export async function withServer<T>(
  bin: PgBinaries,
  ids: Ids,
  dir: string,
  password: string,
  watchdog: Watchdog | undefined,
  fn: (superUrl: string, adminUrl: string) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  const child = spawn(bin.postgres, serverArgs(dir, port, false, undefined), {
    ...ids,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  const pid = child.pid;
  if (pid) watchdog?.add(pid, "SIGINT");
  const err: string[] = [];
  child.stderr.on("data", (d: Buffer) => err.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.once("error", () => resolve(null));
  });
  let done = false;
  void exited.then(() => (done = true));
  try {
    const adminUrl = databaseUrl(port, password, "postgres");
    const deadline = Date.now() + 60_000;
    while (!(await pgReady(adminUrl))) {
      if (done || Date.now() > deadline)
        throw new Error(
          `the Postgres server for the cluster's copy did not start:\n${err.join("").trim().slice(-2000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return await fn(databaseUrl(port, password), adminUrl);
  } finally {
    let killed = false;
    if (!done) {
      child.kill("SIGINT");
      const timer = setTimeout(() => {
        killed = true;
        child.kill("SIGKILL");
      }, 10_000);
      await exited;
      clearTimeout(timer);
    }
    if (pid) watchdog?.remove(pid);
    // A server that had to be killed left a cluster that needs recovery: not one to copy.
    // biome-ignore lint/correctness/noUnsafeFinally: this failure must replace the result
    if (killed) throw new Error("the Postgres server for the cluster's copy did not stop within 10 s");
  }
}
