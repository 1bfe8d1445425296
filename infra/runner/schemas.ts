/**
 * @module infra/runner/schemas
 * What a local cluster's schemas need before the services start: each schema's two roles
 * (kit/src/postgres-roles.ts), then its migrations applied as the schema's owner
 * (kit/src/migrate.ts). Used by the runner at every start and to build the machine's cached
 * cluster (./seed-cluster.ts), so both end in the same state.
 */
import path from "node:path";
import { prepareSchema } from "@gantry/kit/migrate.ts";
import { provisionServiceRoles, type SchemaRoles } from "@gantry/kit/postgres-roles.ts";
import pg from "pg";
import { REPO_ROOT } from "./binaries.ts";

/** Where a service's migrations live. */
export function migrationsDirOf(schema: string): string {
  return path.join(REPO_ROOT, "services", schema, "prisma", "migrations");
}

/**
 * Provisions `roles` as the superuser `superUrl`, then prepares each schema as its owner, all
 * schemas at once. Returns each schema's service login URL (what the service gets as DATABASE_URL).
 */
export async function prepareLocalSchemas(
  superUrl: string,
  roles: ReadonlyMap<string, SchemaRoles>,
  note: (line: string) => void,
  migrationsDir: (schema: string) => string = migrationsDirOf,
): Promise<Map<string, string>> {
  await provisionServiceRoles(superUrl, roles);
  const loginUrl = (role: { name: string; password: string }) => {
    const u = new URL(superUrl);
    u.username = encodeURIComponent(role.name);
    u.password = encodeURIComponent(role.password);
    return u.toString();
  };
  const logins = new Map<string, string>();
  await Promise.all(
    [...roles].map(async ([schema, { owner, service }]) => {
      const pool = new pg.Pool({ connectionString: loginUrl(owner), max: 1 });
      pool.on("error", () => {});
      try {
        const applied = (await prepareSchema(pool, schema, migrationsDir(schema))).migrations.filter((m) => m.applied);
        if (applied.length) note(`${schema}: applied ${applied.map((m) => m.name).join(", ")}`);
      } finally {
        await pool.end().catch(() => undefined);
      }
      logins.set(schema, loginUrl(service));
    }),
  );
  return logins;
}
