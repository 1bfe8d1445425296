/**
 * The schema checks every service with tables runs, written once: its Prisma schema and its
 * hand-written migration SQL agree, the runner records migrations the way `prisma migrate deploy`
 * would and does not re-apply them, the diff notices an undeclared column, and every table with a
 * `tenant` column is under row-level security (enabled, forced, policy `tenant_isolation`).
 *
 * @example
 * // services/keys/src/schema.test.ts
 * schemaSuite("keys");
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { diffSchema, migrate, repoRoot, type AreaService } from "@gantry/kit";
import { startTestStack, type TestStack } from "./stack.ts";

export function schemaSuite(service: AreaService): { stack: () => TestStack } {
  let t: TestStack;
  const schemaPrisma = join(repoRoot(), "services", service, "prisma", "schema.prisma");
  before(async () => {
    t = await startTestStack({ services: [service] });
  });
  after(async () => t?.stop());

  test(`${service}: schema.prisma matches the tables the migrations create`, async () => {
    assert.deepEqual(await diffSchema(t.db, service, schemaPrisma), []);
  });

  test(`${service}: migrations are recorded in _prisma_migrations and not re-applied`, async () => {
    const { rows } = await t.db.query(
      `SELECT migration_name, checksum, finished_at FROM "${service}"._prisma_migrations`,
    );
    assert.ok(rows.length >= 1);
    for (const r of rows) {
      assert.match(r.checksum, /^[0-9a-f]{64}$/);
      assert.ok(r.finished_at);
    }
    const again = await migrate(t.db, service, join(repoRoot(), "services", service, "prisma", "migrations"));
    assert.ok(again.every((m) => !m.applied));
  });

  test(`${service}: the diff notices a column the schema does not declare`, async () => {
    const { rows } = await t.db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name <> '_prisma_migrations' AND table_type = 'BASE TABLE' ORDER BY 1 LIMIT 1`,
      [service],
    );
    const table = rows[0].table_name as string;
    await t.db.query(`ALTER TABLE "${service}"."${table}" ADD COLUMN sneaky text`);
    try {
      assert.deepEqual(await diffSchema(t.db, service, schemaPrisma), [
        `${table}.sneaky: in the database, missing in schema.prisma`,
      ]);
    } finally {
      await t.db.query(`ALTER TABLE "${service}"."${table}" DROP COLUMN sneaky`);
    }
  });

  test(`${service}: every table with a tenant column is under row-level security`, async () => {
    const { rows } = await t.db.query(
      `SELECT c.relname AS table, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
              EXISTS (SELECT 1 FROM pg_policies p WHERE p.schemaname = $1 AND p.tablename = c.relname AND p.policyname = 'tenant_isolation') AS policy
         FROM pg_class c
        WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'
          AND EXISTS (SELECT 1 FROM information_schema.columns col WHERE col.table_schema = $1 AND col.table_name = c.relname AND col.column_name = 'tenant')
        ORDER BY 1`,
      [service],
    );
    assert.ok(rows.length > 0, `${service} has no tenant tables`);
    for (const r of rows) assert.deepEqual(r, { table: r.table, enabled: true, forced: true, policy: true });
  });

  return { stack: () => t };
}
