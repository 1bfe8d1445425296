/**
 * @module infra/runner/start
 * `npm start`: the whole of Gantry on this machine, every service and the gateway as separate
 * processes, their output prefixed (`keys | …`), then the base URL, where the data lives and how
 * to get the admin key. Ctrl-C (or SIGTERM) stops everything and exits 0; a second Ctrl-C kills, a
 * second SIGTERM does not (a supervisor repeats it while it waits for the stop).
 *
 * Reads: PORT (default 8080), DATABASE_URL, NATS_URL, REDIS_URL (use these instead of local
 * instances), GANTRY_ADMIN_KEY, LOG_LEVEL, GANTRY_DATA_DIR (default `.gantry/`), NO_COLOR.
 * See infra/README.md.
 */
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import type { Stack } from "./stack.ts";

// The runner's own modules from V8's compile cache, as its children's (stack.ts, COMPILE_CACHE_DIR):
// without it Node strips the types of every runner file and compiles it again at each start, which
// was 0.5-0.7 s of CPU before anything else could start. So the cache is on before they load.
module.enableCompileCache(
  process.env.NODE_COMPILE_CACHE || path.join(import.meta.dirname, "..", "..", ".gantry", "compile-cache"),
);
const { isWellFormedKey } = await import("@gantry/kit/key-format.ts");
const { createFormatter, ansi } = await import("./format.ts");
const { REPO_ROOT, startStack } = await import("./stack.ts");

const started = Date.now();
const tty = Boolean(process.stdout.isTTY);
const color = tty && !process.env.NO_COLOR && process.env.TERM !== "dumb";
const format = createFormatter({ pretty: tty, color, width: 11 });

const out = (line: string) => {
  try {
    process.stdout.write(`${line}\n`);
  } catch {
    /* stdout closed (e.g. piped to head) */
  }
};
const say = (line: string) => out(format("runner", line));

function envPort(): number {
  const raw = process.env.PORT;
  if (raw === undefined || raw === "") return 8080;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`PORT must be a port number (0 picks a free one), got '${raw}'`);
    process.exit(2);
  }
  return n;
}

const dataDir = path.resolve(process.env.GANTRY_DATA_DIR || path.join(REPO_ROOT, ".gantry"));
const adminKeyFile = path.join(dataDir, "admin-key");
let printedAdminKey: string | undefined;

/** The keys service logs a freshly generated admin key once; keep it so later starts can show it. */
function watchForAdminKey(proc: string, line: string): void {
  if (proc !== "keys" || printedAdminKey || !line.includes("gk_")) return;
  try {
    const rec = JSON.parse(line) as Record<string, unknown>;
    const key = Object.values(rec).find((v): v is string => typeof v === "string" && isWellFormedKey(v));
    if (key && /admin/i.test(String(rec.msg ?? ""))) {
      printedAdminKey = key;
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(adminKeyFile, `${key}\n`, { mode: 0o600 });
    }
  } catch {
    /* not JSON */
  }
}

function savedAdminKey(): string | undefined {
  try {
    const saved = fs.readFileSync(adminKeyFile, "utf8").trim();
    return isWellFormedKey(saved) ? saved : undefined;
  } catch {
    return undefined;
  }
}

const abort = new AbortController();
let stack: Stack | undefined;
let starting: Promise<Stack> | undefined;
let stopping = false;

async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stopping) {
    // Only a person's second Ctrl-C means "now": a supervisor (systemd, Kubernetes, `kill` run
    // twice) repeats SIGTERM while it waits, and killing then would lose the graceful stop.
    if (signal !== "SIGINT") return say(`${signal} again: still stopping (Ctrl-C to kill now)`);
    say(`${signal} again: killing everything`);
    process.exit(130);
  }
  stopping = true;
  out("");
  say(`${signal}: stopping (Ctrl-C again to kill)`);
  const t = Date.now();
  abort.abort();
  await starting?.catch(() => undefined); // an interrupted start-up stops what it started
  await stack?.stop();
  say(`stopped in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  process.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => void shutdown(sig));

say(`starting Gantry (data in ${path.relative(process.cwd(), dataDir) || "."})`);
try {
  starting = startStack({
    port: envPort(),
    dataDir,
    ephemeral: false,
    databaseUrl: process.env.DATABASE_URL || undefined,
    natsUrl: process.env.NATS_URL || undefined,
    redisUrl: process.env.REDIS_URL || undefined,
    signal: abort.signal,
    onLine: (proc, line) => {
      watchForAdminKey(proc, line);
      out(format(proc, line));
    },
  });
  stack = await starting;
} catch (err) {
  if (stopping) {
    setInterval(() => {}, 1 << 30); // shutdown() finishes and exits
    await new Promise(() => {});
  }
  out("");
  say(`Gantry did not start: ${(err as Error).message}`);
  process.exit(1);
}

// The stack's children do not hold the event loop; we stay up until a signal arrives.
setInterval(() => {}, 1 << 30);
// Written now, not only at exit: a runner that is killed still leaves it for the next start.
module.flushCompileCache();

const seconds = ((Date.now() - started) / 1000).toFixed(1);
const s = stack;
const b = (x: string) => (color ? ansi.bold(x) : x);
const g = (x: string) => (color ? ansi.gray(x) : x);
const base = s.baseUrl.replace("127.0.0.1", "localhost");

// Paths as the user can paste them: relative when under the working directory, else absolute.
const shown = (p: string) => {
  const r = path.relative(process.cwd(), p);
  return r === "" ? "." : r.startsWith("..") ? p : r;
};
let adminLine: string;
let keyForExample = "$GANTRY_ADMIN_KEY";
if (process.env.GANTRY_ADMIN_KEY) {
  adminLine = "the key in GANTRY_ADMIN_KEY (registered at start as tenant 'platform', scope '*')";
} else if (printedAdminKey) {
  adminLine = `${printedAdminKey}  ${g(`(generated now, shown once by the keys service; saved in ${shown(adminKeyFile)})`)}`;
  keyForExample = printedAdminKey;
} else if (savedAdminKey()) {
  const saved = savedAdminKey()!;
  adminLine = `${saved}  ${g(`(generated on the first start; saved in ${shown(adminKeyFile)})`)}`;
  keyForExample = saved;
} else {
  adminLine =
    "generated on the first start and printed by the keys service then; set GANTRY_ADMIN_KEY=gk_… to register your own";
}

const local = (name: string) => s.names().includes(name);
/** A URL as the banner shows it: the password is a secret and is never printed. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}

const localData = [
  s.postgresDir,
  local("nats") ? path.join(dataDir, "nats") : undefined,
  s.postgresDir || local("nats") ? adminKeyFile : undefined,
  // Stored credentials are sealed under one, receipts signed with the other: they go with the cluster.
  ...["connections-master-key", "trust-signing-key", "content-signing-key", "web-signing-key"].map((name) =>
    s.postgresDir && fs.existsSync(path.join(dataDir, name)) ? path.join(dataDir, name) : undefined,
  ),
].filter((p): p is string => p !== undefined);
const lines = [
  "",
  b(`Gantry is ready in ${seconds} s`),
  s.baseUrl
    ? `  API         ${b(base)}   ${g(`(GET ${base}/health, docs at ${base}/docs)`)}`
    : "  API         (no gateway: gateway/src/main.ts does not exist yet)",
  `  admin key   ${adminLine}`,
  `  data        ${shown(dataDir)}`,
  ...(s.postgresDir && path.dirname(s.postgresDir) !== dataDir
    ? [
        `              ${g(`postgres cluster in ${s.postgresDir} (the 'postgres' user cannot reach ${shown(dataDir)})`)}`,
      ]
    : []),
  ...(localData.length > 0
    ? [`  reset       ${g(`kept after stop; to start empty: stop, then rm -rf ${localData.map(shown).join(" ")}`)}`]
    : []),
  `  postgres    ${withoutPassword(s.env.DATABASE_URL)}${local("postgres") ? g(`  (superuser; password in ${shown(path.join(dataDir, "postgres-password"))}, each service has a login of its own)`) : g("  (DATABASE_URL)")}`,
  `  nats        ${withoutPassword(s.env.NATS_URL)}${local("nats") ? "" : g("  (NATS_URL)")}`,
  s.env.REDIS_URL
    ? `  redis       ${withoutPassword(s.env.REDIS_URL)}`
    : `  rate limits ${g("in memory (set REDIS_URL for limits shared by several gateways)")}`,
];
if (s.baseUrl) {
  lines.push(
    "",
    g("  try:"),
    g(
      `  curl -s -X POST ${base}/v1/abilities/gantry.about -H "Authorization: Bearer ${keyForExample}" -H "content-type: application/json" -d '{"input":{}}'`,
    ),
  );
}
lines.push("", `Press Ctrl-C to stop.`, "");
for (const line of lines) out(line);
