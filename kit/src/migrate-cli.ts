/**
 * @module kit/migrate-cli
 * Applies one service's migrations (or every service's), then its tenant isolation (row-level
 * security on every table with a `tenant` column, kit/src/tenancy.ts), and exits: what the Helm chart's
 * pre-install/pre-upgrade Jobs and `docker run <image> migrate <service>` run. Services also
 * migrate at start (kit/src/service.ts); running this first makes a schema change an explicit,
 * separately failing step of a rollout instead of a crash loop of new pods.
 *
 * Usage:
 *   node kit/src/migrate-cli.ts keys        one service (its prisma/migrations folder, schema "keys")
 *   node kit/src/migrate-cli.ts all         every service that owns tables (kit/src/topology.ts)
 *
 * Environment: `DATABASE_URL` (required), `LOG_LEVEL`, `MIGRATE_WAIT_SECONDS` (default 60: how
 * long to wait for Postgres to accept connections, e.g. while a database starts beside the Job).
 * Exit codes: 0 applied or already up to date, 1 failed (the log says why), 64 usage error.
 *
 * @example
 * DATABASE_URL=postgres://gantry:…@db:5432/gantry node kit/src/migrate-cli.ts keys
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createLogger } from "./logger.ts";
import { prepareSchema } from "./migrate.ts";
import { waitForPostgres } from "./postgres-wait.ts";
import { AREA_SERVICES } from "./topology.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const log = createLogger("migrate");

function usage(message: string): never {
  process.stderr.write(
    `migrate: ${message}\nusage: node kit/src/migrate-cli.ts <${AREA_SERVICES.map((s) => s.name).join("|")}|all>\n`,
  );
  process.exit(64);
}

const arg = process.argv[2];
if (!arg || process.argv.length > 3) usage("name one service, or all");
const known = AREA_SERVICES.map((s) => s.name) as string[];
if (arg !== "all" && !known.includes(arg)) usage(`unknown service "${arg}"`);

const targets = AREA_SERVICES.filter((s) => (arg === "all" ? s.database : s.name === arg))
  .map((s) => ({ name: s.name, dir: join(ROOT, "services", s.name, "prisma", "migrations"), database: s.database }))
  // A service without tables and without a migrations folder has nothing to apply.
  .filter((t) => t.database || existsSync(t.dir));

if (targets.length === 0) {
  log.info({ service: arg }, "no migrations for this service");
  process.exit(0);
}

const url = process.env.DATABASE_URL;
if (!url || !/^postgres(ql)?:\/\//.test(url)) {
  log.error("DATABASE_URL must be set to a postgres:// URL");
  process.exit(1);
}
const waitSeconds = Number(process.env.MIGRATE_WAIT_SECONDS ?? 60);
if (!Number.isFinite(waitSeconds) || waitSeconds < 0) {
  log.error(
    { MIGRATE_WAIT_SECONDS: process.env.MIGRATE_WAIT_SECONDS },
    "MIGRATE_WAIT_SECONDS must be a number of seconds ≥ 0",
  );
  process.exit(1);
}

const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
pool.on("error", () => {});

let code = 0;
try {
  await waitForPostgres(pool, waitSeconds, log);
  for (const t of targets) {
    const started = performance.now();
    const { migrations, tenantTables } = await prepareSchema(pool, t.name, t.dir);
    const applied = migrations.filter((m) => m.applied).map((m) => m.name);
    log.info(
      {
        schema: t.name,
        applied,
        upToDate: migrations.length - applied.length,
        rowLevelSecurity: tenantTables,
        ms: Math.round(performance.now() - started),
      },
      applied.length ? "migrations applied" : "schema up to date",
    );
  }
} catch (err) {
  log.error({ err: err instanceof Error ? err.message : String(err) }, "migration failed");
  code = 1;
} finally {
  await pool.end().catch(() => {});
}
process.exit(code);
