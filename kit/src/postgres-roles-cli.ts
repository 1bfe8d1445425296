/**
 * @module kit/postgres-roles-cli
 * Creates or brings back in line each service schema's owner and service logins
 * (kit/src/postgres-roles.ts) as the superuser, then exits; with `--watch` it stays, applying them
 * again whenever the roles file changes. The chart runs it with `--watch` as a second container of
 * the bundled Postgres' pod: the superuser's password never leaves that pod, and a service added
 * by `helm upgrade` gets its logins once the kubelet refreshes the mounted Secret.
 *
 * Usage:
 *   node kit/src/postgres-roles-cli.ts [--watch] <schema>...
 *
 * Environment: `DATABASE_URL` (the superuser's), `POSTGRES_ROLES_FILE` (JSON
 * `{"<role>": "<password>"}`, the format of npm start's `.gantry/postgres-roles`, holding
 * `gantry_<schema>_owner` and `gantry_<schema>` of every schema named), `LOG_LEVEL`.
 * With `--watch`, `/tmp/postgres-roles-applied` exists once the roles are in place (the
 * container's readiness). Exit codes: 0 applied, 1 failed (the log says why), 64 usage error.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createLogger } from "./logger.ts";
import { provisionServiceRoles, type SchemaRoles, schemaRoleNames } from "./postgres-roles.ts";

const READY_FILE = "/tmp/postgres-roles-applied";
const POLL_MS = 5_000;
const log = createLogger("postgres-roles");

function usage(message: string): never {
  process.stderr.write(`postgres-roles: ${message}\nusage: node kit/src/postgres-roles-cli.ts [--watch] <schema>...\n`);
  process.exit(64);
}

const args = process.argv.slice(2);
const watch = args.includes("--watch");
const schemas = args.filter((a) => a !== "--watch");
if (schemas.length === 0) usage("name at least one schema");
for (const s of schemas) {
  try {
    schemaRoleNames(s);
  } catch {
    usage(`"${s}" is not a schema name (lower case letters, digits and _)`);
  }
}
const url = process.env.DATABASE_URL ?? "";
if (!/^postgres(ql)?:\/\//.test(url)) usage("DATABASE_URL must be the superuser's postgres:// URL");
const file = process.env.POSTGRES_ROLES_FILE ?? "";
if (!file) usage("POSTGRES_ROLES_FILE must name the roles' password file");

/** The roles file's text and the roles it gives; an error names what is missing, never a password. */
function readRoles(): { text: string; roles: Map<string, SchemaRoles> } {
  const text = readFileSync(file, "utf8");
  let passwords: Record<string, unknown>;
  try {
    passwords = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${file} is not JSON: it must be {"<role>": "<password>"}`);
  }
  const password = (role: string) => {
    const p = passwords[role];
    if (typeof p !== "string" || p.length < 16) throw new Error(`${file} has no password (16+ characters) for ${role}`);
    return p;
  };
  const roles = new Map<string, SchemaRoles>();
  for (const schema of schemas) {
    const n = schemaRoleNames(schema);
    roles.set(schema, {
      owner: { name: n.owner, password: password(n.owner) },
      service: { name: n.service, password: password(n.service) },
    });
  }
  return { text, roles };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies the roles, retrying while Postgres starts or refuses, up to `attempts` times. */
async function apply(roles: Map<string, SchemaRoles>, attempts: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const started = performance.now();
      await provisionServiceRoles(url, roles);
      log.info({ schemas, ms: Math.round(performance.now() - started) }, "schema roles in place");
      return;
    } catch (err) {
      const e = err as Error & { code?: string };
      if (attempt >= attempts) throw err;
      if (attempt === 1 || attempt % 10 === 0)
        log.info({ err: e.message, code: e.code, attempt }, "waiting for Postgres");
      await sleep(Math.min(5_000, 250 * attempt));
    }
  }
}

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const)
  process.on(signal, () => {
    stopping = true;
    process.exit(0);
  });

if (!watch) {
  try {
    await apply(readRoles().roles, 120);
    process.exit(0);
  } catch (err) {
    log.error({ err: err instanceof Error ? err.message : String(err) }, "schema roles not applied");
    process.exit(1);
  }
}

// --watch: a container that keeps the roles in line with the mounted file for the pod's life.
rmSync(READY_FILE, { force: true });
let applied = "";
while (!stopping) {
  try {
    const { text, roles } = readRoles();
    if (text !== applied) {
      await apply(roles, Number.POSITIVE_INFINITY);
      applied = text;
      if (!existsSync(READY_FILE)) writeFileSync(READY_FILE, `${new Date().toISOString()}\n`);
    }
  } catch (err) {
    // The roles stay as they were (Postgres keeps them); the log says what to fix in the file.
    log.error({ err: err instanceof Error ? err.message : String(err) }, "schema roles not applied; retrying");
  }
  await sleep(POLL_MS);
}
