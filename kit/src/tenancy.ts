/**
 * @module kit/tenancy
 * Tenant isolation by construction. Every table of a service that has a `tenant` column gets a
 * Postgres row-level-security policy (see `enforceTenantIsolation`): a row is visible and writable
 * only when its tenant is the connection's `gantry.tenant` setting, or nested under it
 * (`acme` sees `acme/shop1`), or when the connection is in system scope. The setting is not
 * something a handler writes: the kit runs every ability call inside `withTenant(call.tenant)`,
 * and the service's pool (`TenantPool`) copies that scope onto each connection it hands out. A
 * handler that forgets its `where: { tenant }` clause therefore still cannot read, change or
 * delete another tenant's row, and neither can raw SQL.
 *
 * Work that is not a call (start-up, background consumers, sweeps, the key resolver) runs in
 * `asSystem(...)`, an explicit and greppable choice. Outside both scopes a connection sees no
 * tenant rows at all: forgetting a scope fails closed.
 *
 * A service logs in as a role of its own (`gantry_<service>` under `npm start`; SECURITY.md, "Who
 * may reach what"): not the schema's owner, no BYPASSRLS, so the policies hold for it and it cannot
 * drop them. Superusers and roles with BYPASSRLS ignore policies, so when a service is nevertheless
 * given one (an external DATABASE_URL), its pool switches each connection to an unprivileged role
 * (`gantry_service`) that the migration step creates and grants. Table owners are held to the
 * policies by FORCE ROW LEVEL SECURITY.
 *
 * @example
 * await withTenant("acme", () => db.contact.findMany()); // only acme's (and acme/…'s) contacts
 * await asSystem(() => pool.query("DELETE FROM expired_sessions WHERE …")); // a sweep
 */
import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { inTransaction } from "./data/transaction.ts";
import { callSignal } from "./call-signal.ts";

/** The scope a connection is bound to. */
export type TenantScope = { kind: "tenant"; tenant: string } | { kind: "system" };

const scopes = new AsyncLocalStorage<TenantScope>();

/**
 * Runs `fn` in `scope`. A lazy thenable (a Prisma query starts only when something calls its
 * `then`) is started here, inside the scope: returned as is, it would start after the scope ended
 * and run with none.
 */
function runIn<T>(scope: TenantScope, fn: () => T): T {
  return scopes.run(scope, () => {
    const result = fn();
    if (result instanceof Promise || !isThenable(result)) return result;
    return new Promise((resolve, reject) => result.then(resolve, reject)) as T;
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === "function"
  );
}

/** Runs `fn` with the database scoped to `tenant` (and its nested sub-tenants). */
export function withTenant<T>(tenant: string, fn: () => T): T {
  if (!tenant) throw new Error("withTenant: empty tenant");
  return runIn({ kind: "tenant", tenant }, fn);
}

/** Runs `fn` with access to every tenant's rows: start-up, background work, cross-tenant lookups. */
export function asSystem<T>(fn: () => T): T {
  return runIn({ kind: "system" }, fn);
}

/** The scope of the current async context, if any. */
export function currentScope(): TenantScope | undefined {
  return scopes.getStore();
}

/** The unprivileged role a superuser connection switches to so policies apply. */
export const SERVICE_ROLE = "gantry_service";

function scopeStatement(scope: TenantScope | undefined): string {
  const tenant = scope?.kind === "tenant" ? scope.tenant : "";
  const system = scope?.kind === "system" ? "on" : "off";
  // One round trip, no parameters (simple protocol): the tenant is quoted by the driver's own escaper.
  return `SELECT set_config('gantry.tenant', ${pg.Client.prototype.escapeLiteral(tenant)}, false), set_config('gantry.system', '${system}', false)`;
}

export interface TenantPoolOptions extends pg.PoolConfig {
  /** Role to switch every new connection to (set when the login role bypasses row-level security). */
  role?: string;
}

type ConnectCallback = (
  err: Error | undefined,
  client?: pg.PoolClient,
  release?: (err?: Error | boolean) => void,
) => void;

/**
 * A `pg.Pool` whose connections carry the scope of the code that asked for them. The scope is read
 * when `connect()` is called, in the caller's async context, never later from an event: a client
 * handed over after a wait must not inherit the scope of whoever released it.
 */
export class TenantPool extends pg.Pool {
  readonly #setRole?: string;
  /**
   * The scope statement each client last applied. A client keeps its role for its whole life and its
   * scope until the next statement, so a checkout in the scope the client already has costs no
   * round trip (the common case: one tenant's calls in a row). Nothing else may set `gantry.*`.
   */
  readonly #applied = new WeakMap<pg.PoolClient, string>();

  constructor(options: TenantPoolOptions) {
    const { role, ...config } = options;
    super(config);
    if (role) this.#setRole = `SET ROLE ${pg.Client.prototype.escapeIdentifier(role)}`;
  }

  /** Cancels the statement `client` runs if `signal` aborts before the client goes back to the pool. */
  #cancelOnAbort(client: pg.PoolClient, signal: AbortSignal): void {
    const onAbort = () => cancelRunning(this.options, client);
    signal.addEventListener("abort", onAbort, { once: true });
    const release = client.release;
    client.release = (err?: Error | boolean) => {
      signal.removeEventListener("abort", onAbort);
      client.release = release;
      return release.call(client, err);
    };
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    const statement = scopeStatement(scopes.getStore());
    // A call whose caller gave up starts no statement, and the one it is running is cancelled.
    const signal = callSignal();
    const checkedOut = signal?.aborted ? Promise.reject(signal.reason) : super.connect();
    const scoped = checkedOut.then(async (client) => {
      if (signal) this.#cancelOnAbort(client, signal);
      const last = this.#applied.get(client);
      if (last === statement) return client;
      try {
        // A new client switches role in the same round trip; if anything fails, the client is
        // discarded and the call fails: a connection that would bypass the policies is never handed out.
        this.#applied.delete(client);
        await client.query(last === undefined && this.#setRole ? `${this.#setRole}; ${statement}` : statement);
        this.#applied.set(client, statement);
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      return client;
    });
    if (!callback) return scoped;
    scoped.then(
      (client) => callback(undefined, client, (err) => client.release(err)),
      (err) => callback(err as Error, undefined, () => {}),
    );
  }
}

/** What node-postgres keeps of a connection that a cancel request needs (not in its typings). */
interface Backend {
  processID: number | null;
  secretKey: number | null;
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
}

/**
 * Asks the server to cancel what `client` runs: Postgres's cancel request, on a connection of its
 * own, names the backend by the process id and secret key it gave at start.
 */
function cancelRunning(options: pg.PoolConfig, client: pg.PoolClient): void {
  const backend = client as unknown as Backend;
  if (!backend.processID || (!backend._activeQuery && !backend._queryQueue?.length)) return;
  const canceller = new pg.Client(options) as unknown as {
    host: string;
    port: number;
    connection: {
      connect(portOrPath: number | string, host?: string): void;
      cancel(processID: number, secretKey: number | null): void;
      on(event: string, fn: (...args: unknown[]) => void): void;
      once(event: string, fn: () => void): void;
      end(): void;
    };
  };
  const con = canceller.connection;
  con.on("error", () => {}); // best effort: the statement then ends on its own
  con.once("connect", () => con.cancel(backend.processID!, backend.secretKey));
  if (canceller.host?.startsWith("/")) con.connect(`${canceller.host}/.s.PGSQL.${canceller.port}`);
  else con.connect(canceller.port, canceller.host);
}

/**
 * Creates the policies: every table of `schema` with a `tenant` column gets row-level security,
 * forced for its owner, and one policy named `tenant_isolation`. Run after every migration, so a
 * table added later is covered without anyone remembering to. When `role` is given it is created
 * (if missing) without privileges beyond the schema's tables, for superuser logins to switch to.
 * Returns the tables it covered.
 */
export async function enforceTenantIsolation(pool: pg.Pool, schema: string, role?: string): Promise<string[]> {
  const ident = (name: string) => pg.Client.prototype.escapeIdentifier(name);
  const rows = await tenantTables(pool, schema);
  const inScope = `(tenant = current_setting('gantry.tenant', true)
      OR starts_with(tenant, current_setting('gantry.tenant', true) || '/')
      OR current_setting('gantry.system', true) = 'on')`;
  await inTransaction(pool, async (client) => {
    // One transaction-scoped advisory lock per schema: replicas starting together do not race.
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`gantry-rls:${schema}`]);
    if (role) {
      const exists = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
      if (exists.rowCount === 0) await client.query(`CREATE ROLE ${ident(role)} NOLOGIN NOSUPERUSER NOBYPASSRLS`);
      await client.query(`GRANT ${ident(role)} TO CURRENT_USER`).catch(() => {});
      await client.query(`GRANT USAGE ON SCHEMA ${ident(schema)} TO ${ident(role)}`);
      await client.query(`GRANT ALL ON ALL TABLES IN SCHEMA ${ident(schema)} TO ${ident(role)}`);
      await client.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA ${ident(schema)} TO ${ident(role)}`);
      await client.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${ident(schema)} TO ${ident(role)}`);
    }
    // Only what is missing: each statement locks the table, and replicas start while others serve.
    for (const { table, enabled, forced, policy } of rows) {
      const t = `${ident(schema)}.${ident(table)}`;
      if (!enabled) await client.query(`ALTER TABLE ${t} ENABLE ROW LEVEL SECURITY`);
      if (!forced) await client.query(`ALTER TABLE ${t} FORCE ROW LEVEL SECURITY`);
      if (!policy) await client.query(`CREATE POLICY tenant_isolation ON ${t} USING ${inScope} WITH CHECK ${inScope}`);
    }
  });
  return rows.map((r) => r.table);
}

/**
 * The tables of `schema` with a `tenant` column, and those of them not under isolation (row-level
 * security off or not forced, or no `tenant_isolation` policy): what a service that may not change
 * its tables checks at start.
 */
export async function tablesWithoutIsolation(
  pool: pg.Pool,
  schema: string,
): Promise<{ tenantTables: string[]; tables: string[] }> {
  const rows = await tenantTables(pool, schema);
  return {
    tenantTables: rows.map((r) => r.table),
    tables: rows.filter((r) => !(r.enabled && r.forced && r.policy)).map((r) => r.table),
  };
}

async function tenantTables(
  pool: pg.Pool,
  schema: string,
): Promise<Array<{ table: string; enabled: boolean; forced: boolean; policy: boolean }>> {
  const { rows } = await pool.query<{ table: string; enabled: boolean; forced: boolean; policy: boolean }>(
    `SELECT c.relname AS "table", c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
            EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = $1 AND p.tablename = c.relname
                     AND p.policyname = 'tenant_isolation') AS policy
       FROM pg_class c
      WHERE c.relnamespace = to_regnamespace($1) AND c.relkind = 'r'
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant' AND NOT a.attisdropped)
      ORDER BY 1`,
    [schema],
  );
  return rows;
}

/** True when the login role ignores row-level security (superuser or BYPASSRLS). */
export async function bypassesRls(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ bypass: boolean }>(
    "SELECT rolsuper OR rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user",
  );
  return rows[0]?.bypass === true;
}
