/**
 * @module bench/lib/express-gateway
 * The peer: express-gateway 1.16 with `key-auth` + `rate-limit` (`delayMs: 0`, a limit far above
 * what a run sends, counted per consumer like Gantry's per-key limit) + `proxy` to a trivial
 * backend. It is installed by the bench into `.gantry/bench/express-gateway/` (an npm prefix outside
 * the project's dependencies, reused by later runs) and its key is created through its admin API.
 *
 * Its data store is its built-in Redis emulation (`db.redis.emulate: true`, in process), as Gantry's
 * rate limiter is in process when REDIS_URL is unset; neither pays a network hop for its counters.
 * npm 11 does not run the two install scripts in its tree (ejs, es5-ext: both only print a notice).
 */
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";
import { freePort } from "../../infra/runner/ports.ts";
import { startChild, type Child } from "./child.ts";

export const EG_VERSION = "1.16.11";

export interface ExpressGateway {
  child: Child;
  url: string;
  /** `Authorization` header value for the bench consumer's key. */
  authorization: string;
}

function installedVersion(dir: string): string | undefined {
  try {
    return (
      JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "express-gateway", "package.json"), "utf8")) as {
        version: string;
      }
    ).version;
  } catch {
    return undefined;
  }
}

/** Installs express-gateway into `dir` unless that version is there already. Returns seconds spent (0 when cached). */
export async function ensureExpressGateway(dir: string, log: (line: string) => void): Promise<number> {
  if (installedVersion(dir) === EG_VERSION) return 0;
  fs.mkdirSync(dir, { recursive: true });
  log(`installing express-gateway@${EG_VERSION} into ${path.relative(process.cwd(), dir)} (once; about a minute)`);
  const t0 = performance.now();
  const args = [
    "install",
    "--prefix",
    dir,
    `express-gateway@${EG_VERSION}`,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ];
  const out: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn("npm", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: process.env });
    p.stdout.on("data", (d: Buffer) => out.push(d.toString()));
    p.stderr.on("data", (d: Buffer) => out.push(d.toString()));
    p.on("exit", resolve);
    p.on("error", () => resolve(null));
  });
  if (code !== 0 || installedVersion(dir) !== EG_VERSION) {
    throw new Error(`npm ${args.join(" ")} failed (exit ${code}):\n${out.join("").slice(-2000)}`);
  }
  return (performance.now() - t0) / 1000;
}

function writeConfig(dir: string, configDir: string): void {
  fs.mkdirSync(path.join(configDir, "models"), { recursive: true });
  const models = path.join(dir, "node_modules", "express-gateway", "lib", "config", "models");
  for (const f of fs.readdirSync(models)) fs.copyFileSync(path.join(models, f), path.join(configDir, "models", f));
  fs.writeFileSync(
    path.join(configDir, "system.config.yml"),
    `# Written by bench/lib/express-gateway.ts
db:
  redis:
    emulate: true
    namespace: EG
crypto:
  cipherKey: benchCipherKey
  algorithm: aes256
  saltRounds: 10
session:
  secret: bench
  resave: false
  saveUninitialized: false
accessTokens:
  timeToExpiry: 7200000
refreshTokens:
  timeToExpiry: 7200000
authorizationCodes:
  timeToExpiry: 300000
`,
  );
  fs.writeFileSync(
    path.join(configDir, "gateway.config.yml"),
    `# Written by bench/lib/express-gateway.ts
http:
  port: \${EG_HTTP_PORT}
  hostname: 127.0.0.1
admin:
  port: \${EG_ADMIN_PORT}
  host: 127.0.0.1
apiEndpoints:
  api:
    host: '*'
    paths: '/*'
serviceEndpoints:
  backend:
    url: '\${EG_BACKEND_URL}'
policies:
  - key-auth
  - rate-limit
  - proxy
pipelines:
  bench:
    apiEndpoints:
      - api
    policies:
      - key-auth:
      - rate-limit:
          - action:
              max: 1000000000
              windowMs: 60000
              delayMs: 0
      - proxy:
          - action:
              serviceEndpoint: backend
`,
  );
}

async function admin(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`express-gateway admin ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Starts express-gateway in front of `backendUrl` and creates a consumer with a key-auth key. */
export async function startExpressGateway(dir: string, backendUrl: string): Promise<ExpressGateway> {
  const configDir = path.join(dir, "config");
  writeConfig(dir, configDir);
  const httpPort = await freePort();
  const adminPort = await freePort();
  const child = await startChild({
    name: "express-gateway",
    command: process.execPath,
    args: [path.join(import.meta.dirname, "..", "servers", "express-gateway.ts")],
    env: {
      ...process.env,
      EG_DIR: dir,
      EG_CONFIG_DIR: configDir,
      EG_HTTP_PORT: String(httpPort),
      EG_ADMIN_PORT: String(adminPort),
      EG_BACKEND_URL: backendUrl,
    },
    readyLine: /^READY (\d+)/,
    timeoutMs: 60_000,
  });
  try {
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    await admin(`${adminUrl}/users`, { username: "bench", firstname: "Bench", lastname: "Consumer" });
    const cred = await admin(`${adminUrl}/credentials`, { consumerId: "bench", type: "key-auth", credential: {} });
    return {
      child,
      url: `http://127.0.0.1:${httpPort}`,
      authorization: `apiKey ${String(cred.keyId)}:${String(cred.keySecret)}`,
    };
  } catch (err) {
    await child.stop();
    throw err;
  }
}
