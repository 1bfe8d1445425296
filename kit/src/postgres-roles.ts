/**
 * @module kit/postgres-roles
 * The two Postgres logins of each service's schema (SECURITY.md, "Postgres"): an owner that the
 * migrations run as, and the service's own login, which may only read and write that schema's rows
 * under row-level security. Applied by `npm start`'s runner (infra/runner/stack.ts) and, in the
 * chart, by the bundled Postgres' roles container (kit/src/postgres-roles-cli.ts): one set of
 * statements for both.
 */
import pg from "pg";

/** The two roles of a service's schema: names and passwords. */
export interface SchemaRoles {
  /** Owns the schema and every object in it; migrations run as it. */
  owner: { name: string; password: string };
  /** The service's login: data privileges on its own schema's tables only, held to row-level security. */
  service: { name: string; password: string };
}

/** Role names of `schema`: `gantry_<schema>_owner` and `gantry_<schema>`. */
export function schemaRoleNames(schema: string): { owner: string; service: string } {
  if (!/^[a-z][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${JSON.stringify(schema)}`);
  return { owner: `gantry_${schema}_owner`, service: `gantry_${schema}` };
}

/**
 * Creates (or brings back in line) the roles of each schema, as the superuser `adminUrl` names:
 *
 * - nobody but these roles may connect to the database or make temporary tables (PUBLIC loses
 *   CONNECT and TEMPORARY), and nobody may use the `public` schema;
 * - `gantry_<s>_owner` owns schema `s` and what is in it (objects an older cluster made as the
 *   superuser are handed over), and nothing else;
 * - `gantry_<s>` may use schema `s` and read and write its tables and sequences (granted now and,
 *   as default privileges, for whatever the owner's migrations create later), and nothing else.
 *
 * Both are plain logins: not superuser, no BYPASSRLS, no CREATEDB/CREATEROLE, members of no role,
 * so `SET ROLE` has nowhere to go and `RESET ROLE` leads back to themselves. The service login is
 * not the owner, so it cannot disable row-level security, drop a policy or change a table.
 */
export async function provisionServiceRoles(adminUrl: string, roles: ReadonlyMap<string, SchemaRoles>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on("error", () => {});
  await client.connect();
  const id = (name: string) => client.escapeIdentifier(name);
  const lit = (value: string) => client.escapeLiteral(value);
  try {
    await client.query("BEGIN");
    // Runners starting on one cluster at once must not both CREATE ROLE.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('gantry-roles'))");
    const { rows: db } = await client.query<{ name: string }>("SELECT current_database() AS name");
    const database = id(db[0].name);
    await client.query(`REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
    await client.query("REVOKE ALL ON SCHEMA public FROM PUBLIC");
    for (const [schema, { owner, service }] of roles) {
      const s = id(schema);
      for (const role of [owner, service]) {
        const exists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role.name]);
        const attrs = `LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS PASSWORD ${lit(role.password)}`;
        await client.query(`${exists.rowCount ? "ALTER" : "CREATE"} ROLE ${id(role.name)} WITH ${attrs}`);
        // Membership in any role would let `SET ROLE` widen what the login may do.
        const { rows: memberships } = await client.query<{ role: string }>(
          "SELECT r.rolname AS role FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE m.member = to_regrole($1)",
          [role.name],
        );
        for (const m of memberships) await client.query(`REVOKE ${id(m.role)} FROM ${id(role.name)}`);
        await client.query(`GRANT CONNECT ON DATABASE ${database} TO ${id(role.name)}`);
      }
      const o = id(owner.name);
      const svc = id(service.name);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s} AUTHORIZATION ${o}`);
      await client.query(`ALTER SCHEMA ${s} OWNER TO ${o}`);
      await handOver(client, schema, owner.name);
      await client.query(`REVOKE ALL ON SCHEMA ${s} FROM PUBLIC`);
      await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${svc}`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${svc}`);
      await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${s} TO ${svc}`);
      await client.query(
        `ALTER DEFAULT PRIVILEGES FOR ROLE ${o} IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${svc}`,
      );
      await client.query(
        `ALTER DEFAULT PRIVILEGES FOR ROLE ${o} IN SCHEMA ${s} GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${svc}`,
      );
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Gives `owner` what schema `schema` holds and it does not own yet: clusters made before per-service
 * roles have the superuser's tables there, which the owner must own to migrate them. Tables take
 * their indexes and column sequences with them; other sequences, views, routines and types follow.
 */
async function handOver(client: pg.Client, schema: string, owner: string): Promise<void> {
  const objects = await client.query<{ kind: string; name: string }>(
    `SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                           ELSE 'TABLE' END AS kind,
            format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'S', 'v', 'm') AND c.relowner <> to_regrole($2)
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                         AND d.deptype IN ('a', 'i') AND d.refclassid = 'pg_class'::regclass)
     UNION ALL
     SELECT 'ROUTINE', p.oid::regprocedure::text
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1 AND p.proowner <> to_regrole($2)
     UNION ALL
     SELECT 'TYPE', format('%I.%I', n.nspname, t.typname)
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = $1 AND t.typowner <> to_regrole($2) AND t.typtype IN ('e', 'd', 'r', 'c')
        AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
      ORDER BY 1 DESC`,
    [schema, owner],
  );
  for (const { kind, name } of objects.rows)
    await client.query(`ALTER ${kind} ${name} OWNER TO ${client.escapeIdentifier(owner)}`);
}
