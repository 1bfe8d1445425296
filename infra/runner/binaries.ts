/**
 * @module infra/runner/binaries
 * Finds the external servers the local stack needs: `nats-server` (always, unless `NATS_URL` is
 * given) and `redis-server` (only for stacks that ask for Redis).
 *
 * nats-server is looked up as `NATS_SERVER_BIN`, then on `PATH`, then in `<repo>/.gantry/bin/`.
 * When none is there and Go is installed, it is built once from the Go module proxy into
 * `<repo>/.gantry/bin/` (about 35 s on 2 cores).
 *
 * @example
 * const nats = await findNatsServer((line) => console.log(line));
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Where tools built by the runner are kept (independent of a stack's data directory). */
export const TOOLS_BIN = path.join(REPO_ROOT, ".gantry", "bin");
/**
 * The machine's tools cache, outside the clone, where .ci/run keeps the tools it builds with Go
 * (weaviate-server, helm, jaeger, the Kubernetes binaries, Schemathesis' virtualenv) so a fresh clone
 * reuses them: `$GANTRY_TOOLS_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/gantry/bin`.
 */
export const TOOLS_CACHE =
  process.env.GANTRY_TOOLS_CACHE ||
  path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"), "gantry", "bin");
/** The nats-server release built when no binary is installed (builds with Go ≥ 1.24). */
export const NATS_SERVER_MODULE = "github.com/nats-io/nats-server/v2@v2.11.17";

function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where Debian puts daemons: often not on a non-root user's PATH. */
const SYSTEM_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** First executable called `name` on `PATH` or in the usual system directories, or undefined. */
export function which(name: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? "").split(path.delimiter), ...SYSTEM_DIRS]) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

let natsBuild: Promise<string> | undefined;

/**
 * Path of a usable nats-server binary, building one with `go install` when needed.
 * @param log receives progress lines (the build notice).
 */
export async function findNatsServer(log: (line: string) => void = () => {}): Promise<string> {
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`NATS_SERVER_BIN=${fromEnv} is not an executable file`);
  }
  const onPath = which("nats-server");
  if (onPath) return onPath;
  const built = path.join(TOOLS_BIN, "nats-server");
  if (isExecutable(built)) return built;
  const go = which("go");
  if (!go) {
    throw new Error(
      "nats-server was not found (looked at NATS_SERVER_BIN, PATH and .gantry/bin/). " +
        "Install it (Debian/Ubuntu: `apt-get install nats-server`), set NATS_SERVER_BIN to its path, " +
        "or point Gantry at a running server with NATS_URL=nats://host:4222.",
    );
  }
  natsBuild ??= buildNatsServer(go, TOOLS_BIN, log).finally(() => {
    natsBuild = undefined;
  });
  return natsBuild;
}

/** `go install` nats-server into `binDir`; resolves to the binary's path. */
export async function buildNatsServer(go: string, binDir: string, log: (line: string) => void): Promise<string> {
  const started = Date.now();
  const target = path.join(binDir, "nats-server");
  log(`building nats-server from the Go module proxy (first run only; ${NATS_SERVER_MODULE})…`);
  fs.mkdirSync(binDir, { recursive: true });
  const output: string[] = [];
  const code = await new Promise<number>((resolve) => {
    const child = spawn(go, ["install", NATS_SERVER_MODULE], {
      env: {
        ...process.env,
        GOBIN: binDir,
        GOFLAGS: [process.env.GOFLAGS, "-buildvcs=false"].filter(Boolean).join(" "),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (d: Buffer) => output.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => output.push(d.toString()));
    child.on("error", (err) => {
      output.push(String(err));
      resolve(-1);
    });
    child.on("close", (c) => resolve(c ?? -1));
  });
  if (code !== 0 || !isExecutable(target)) {
    throw new Error(
      `building nats-server with \`go install ${NATS_SERVER_MODULE}\` failed (exit ${code}):\n${output.join("").trim()}\n` +
        "Install it instead (Debian/Ubuntu: `apt-get install nats-server`) or set NATS_URL to a running server.",
    );
  }
  const shown = target.startsWith(REPO_ROOT) ? path.relative(REPO_ROOT, target) : target;
  log(`built nats-server into ${shown} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return target;
}

/** Path of redis-server (`REDIS_SERVER_BIN`, then `PATH`), or a clear error. */
export function findRedisServer(): string {
  const fromEnv = process.env.REDIS_SERVER_BIN;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`REDIS_SERVER_BIN=${fromEnv} is not an executable file`);
  }
  const onPath = which("redis-server");
  if (onPath) return onPath;
  throw new Error(
    "redis-server was not found on PATH. Install it (Debian/Ubuntu: `apt-get install redis-server`), " +
      "set REDIS_SERVER_BIN to its path, or point Gantry at a running server with REDIS_URL=redis://host:6379.",
  );
}
