/**
 * @module kit/data/prepared
 * A hot-path read as a named prepared statement on the service's `TenantPool`, for the few reads
 * where Prisma's per-query cost shows (contact.get through the whole chain went from 0.73× to 0.89×
 * express-gateway's proxy throughput, each ratio measured within its own `npm run bench` run).
 * Postgres plans the statement once per connection.
 *
 * Tenant isolation holds by construction, as for Prisma: the pool puts the call's scope on the
 * connection before the statement runs and row-level security filters the rows; a `tenant = $n`
 * clause is there only so the index is used. Columns are aliased to the Prisma model's field names
 * so rows feed the same output mappers.
 *
 * @example
 * const contactById = preparedQuery<Contact, [id: string, tenant: string]>(
 *   "workspace.contact_by_id",
 *   `SELECT id, … FROM workspace.contacts WHERE id = $1 AND tenant = $2`,
 * );
 * const [row] = await contactById(ctx.pool, input.id, call.tenant);
 */
import type pg from "pg";

export function preparedQuery<Row extends pg.QueryResultRow, Values extends unknown[]>(name: string, text: string) {
  return async (pool: pg.Pool, ...values: Values): Promise<Row[]> =>
    (await pool.query<Row>({ name, text, values })).rows;
}
