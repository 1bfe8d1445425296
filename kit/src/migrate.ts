/**
 * @module kit/migrate
 * The one migration runner. Migrations are kept in Prisma's folder format
 * (`prisma/migrations/<timestamp>_<name>/migration.sql`, hand-written SQL) and recorded in the
 * schema's `_prisma_migrations` table exactly as `prisma migrate deploy` would, so the Prisma CLI
 * stays usable where its schema engine exists. We apply them ourselves because the engine binary
 * cannot be downloaded on these machines and `migrate deploy` then silently does nothing.
 *
 * Migrations run as the role that owns the schema (`gantry_<schema>_owner` locally; the runner and
 * the chart's Jobs use it). A service's own login is not the owner and cannot change a table: at
 * start it only checks that every migration was applied and every tenant table is under row-level
 * security, and refuses to serve otherwise (SECURITY.md, "Who may reach what").
 *
 * Tables the kit owns are created by the kit, not by each service's SQL: after a service's own
 * migrations the runner creates the `idempotency_records` table (kit/src/data/idempotency.ts) in
 * the schema of every service whose kit/src/topology.ts entry says `idempotency: true`.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type pg from "pg";
import { IDEMPOTENCY_TABLE_SQL } from "./data/idempotency.ts";
import { bypassesRls, enforceTenantIsolation, SERVICE_ROLE, tablesWithoutIsolation } from "./tenancy.ts";
import { AREA_SERVICES } from "./topology.ts";

export interface AppliedMigration {
  name: string;
  applied: boolean;
}

/** The kit-owned tables a schema gets besides its own migrations. */
export interface KitTables {
  /** The `idempotency_records` table of kit/src/data/idempotency.ts. */
  idempotency?: boolean;
}

/** What kit/src/topology.ts declares for the service named like `schema` (nothing for another schema). */
export function kitTablesOf(schema: string): KitTables {
  const spec = AREA_SERVICES.find((s) => s.name === schema);
  return { idempotency: spec?.idempotency === true };
}

const PRISMA_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe schema name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

/**
 * Applies every migration not yet recorded, in name order, each in its own transaction, under an
 * advisory lock so that replicas starting together apply each migration once. A recorded migration
 * whose file changed since is refused: history must not be rewritten. Then, under the same lock,
 * the kit's own tables (`kit`, by default what topology declares for the schema), each
 * `CREATE TABLE IF NOT EXISTS`, so a service whose migration created one already is left as it is.
 */
export async function migrate(
  pool: pg.Pool,
  schema: string,
  migrationsDir: string,
  kit: KitTables = kitTablesOf(schema),
): Promise<AppliedMigration[]> {
  const schemaIdent = quoteIdent(schema);
  let names: string[];
  try {
    names = (await readdir(migrationsDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") names = [];
    else throw err;
  }
  const client = await pool.connect();
  const result: AppliedMigration[] = [];
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext($1))`, [`gantry-migrate:${schema}`]);
    // An owner that may not create schemas (the usual case) is refused even by IF NOT EXISTS.
    const { rows: found } = await client.query("SELECT to_regnamespace($1) IS NOT NULL AS exists", [schema]);
    if (!found[0].exists) await client.query(`CREATE SCHEMA ${schemaIdent}`);
    await client.query(`SET search_path TO ${schemaIdent}`);
    await client.query(PRISMA_MIGRATIONS_TABLE);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    for (const name of names) {
      const sql = await readFile(join(migrationsDir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const recorded = done.get(name);
      if (recorded !== undefined) {
        if (recorded !== checksum) {
          throw new Error(
            `migration ${schema}/${name} was edited after it was applied (checksum differs); add a new migration instead`,
          );
        }
        result.push({ name, applied: false });
        continue;
      }
      const id = randomUUID();
      await client.query("BEGIN");
      try {
        await client.query(`SET LOCAL search_path TO ${schemaIdent}`);
        // A migration is system work: the owner is held to row-level security (FORCE), and a data
        // migration must see every tenant's rows.
        await client.query("SELECT set_config('gantry.system', 'on', true)");
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`,
          [id, checksum, name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${schema}/${name} failed: ${(err as Error).message}`, { cause: err });
      }
      result.push({ name, applied: true });
    }
    if (kit.idempotency) await client.query(IDEMPOTENCY_TABLE_SQL);
  } finally {
    await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`gantry-migrate:${schema}`]).catch(() => {});
    await client.query(`RESET search_path`).catch(() => {});
    client.release();
  }
  return result;
}

export interface PreparedSchema {
  migrations: AppliedMigration[];
  /** Tables under row-level security. */
  tenantTables: string[];
  /** The role service connections switch to (set when the login role bypasses row-level security). */
  role?: string;
}

/**
 * What a service's schema needs before it serves, run by the service at start and by the migrate
 * command alike: the migrations, then tenant isolation on every table with a `tenant` column.
 */
export async function prepareSchema(
  pool: pg.Pool,
  schema: string,
  migrationsDir: string,
  kit: KitTables = kitTablesOf(schema),
): Promise<PreparedSchema> {
  if (!(await mayMigrate(pool, schema))) return checkSchema(pool, schema, migrationsDir, kit);
  const role = (await bypassesRls(pool)) ? SERVICE_ROLE : undefined;
  // A restart: when every migration is recorded unchanged, the kit's tables are there and every
  // tenant table is isolated, the read-only check a service's own login makes says so in a few
  // reads, without the migrator's lock, DDL and transaction for each schema. A login that bypasses
  // row-level security still takes the full path, which grants the role its connections switch to.
  if (!role) {
    const ready = await checkSchema(pool, schema, migrationsDir, kit).catch(() => undefined);
    if (ready && ready.migrations.length > 0) return ready;
  }
  const migrations = await migrate(pool, schema, migrationsDir, kit);
  const tenantTables = await enforceTenantIsolation(pool, schema, role);
  return { migrations, tenantTables, role };
}

/**
 * True when the login may migrate `schema`: it owns it (or is a member of its owner, or superuser),
 * or the schema does not exist yet and the login may create it.
 */
export async function mayMigrate(pool: pg.Pool, schema: string): Promise<boolean> {
  const { rows } = await pool.query<{ may: boolean }>(
    `SELECT COALESCE((SELECT pg_has_role(current_user, nspowner, 'USAGE') FROM pg_namespace WHERE nspname = $1),
                     has_database_privilege(current_database(), 'CREATE')) AS may`,
    [schema],
  );
  return rows[0]?.may === true;
}

/**
 * What a login that may not migrate does instead: refuse to serve a schema that is behind its
 * migrations (or whose applied migrations were edited), that lacks a kit table it should have, or
 * whose tenant tables are not all under row-level security, naming what the owner has to run.
 */
async function checkSchema(
  pool: pg.Pool,
  schema: string,
  migrationsDir: string,
  kit: KitTables,
): Promise<PreparedSchema> {
  const schemaIdent = quoteIdent(schema);
  const fix = `apply them as the schema's owner (node kit/src/migrate-cli.ts ${schema}, or the chart's migrations Job)`;
  let names: string[] = [];
  try {
    names = (await readdir(migrationsDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const done = new Map<string, string>();
  if (names.length > 0) {
    const { rows: exists } = await pool.query("SELECT to_regclass($1) IS NOT NULL AS exists", [
      `${schemaIdent}."_prisma_migrations"`,
    ]);
    if (exists[0].exists) {
      const { rows } = await pool.query<{ migration_name: string; checksum: string }>(
        `SELECT migration_name, checksum FROM ${schemaIdent}."_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      );
      for (const r of rows) done.set(r.migration_name, r.checksum);
    }
  }
  const pending: string[] = [];
  for (const name of names) {
    const recorded = done.get(name);
    if (recorded === undefined) {
      pending.push(name);
      continue;
    }
    const sql = await readFile(join(migrationsDir, name, "migration.sql"), "utf8");
    if (createHash("sha256").update(sql).digest("hex") !== recorded)
      throw new Error(`migration ${schema}/${name} was edited after it was applied (checksum differs)`);
  }
  if (pending.length > 0)
    throw new Error(`schema ${schema} has migrations that are not applied (${pending.join(", ")}): ${fix}`);
  if (kit.idempotency) {
    const { rows } = await pool.query("SELECT to_regclass($1) IS NOT NULL AS exists", [
      `${schemaIdent}."idempotency_records"`,
    ]);
    if (!rows[0].exists) throw new Error(`schema ${schema} has no idempotency_records table (the kit's): ${fix}`);
  }
  const uncovered = await tablesWithoutIsolation(pool, schema);
  if (uncovered.tables.length > 0)
    throw new Error(
      `schema ${schema}: tenant tables without row-level security (${uncovered.tables.join(", ")}): ${fix}`,
    );
  return { migrations: names.map((name) => ({ name, applied: false })), tenantTables: uncovered.tenantTables };
}
