/**
 * The migration runner on a real Postgres: applies in order, records like Prisma, is idempotent,
 * rolls back a failing migration whole, refuses an edited one, and serialises concurrent runners.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "./migrate.ts";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
});
after(async () => t?.stop());

function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "gantry-migrations-"));
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

test("applies in name order into the schema, records checksums, and is idempotent", async () => {
  const dir = migrationsDir({
    "20260101000000_a": "CREATE TABLE things (id int primary key);",
    "20260102000000_b": "ALTER TABLE things ADD COLUMN name text;",
  });
  const first = await migrate(t.db, "mtest_a", dir);
  assert.deepEqual(first, [
    { name: "20260101000000_a", applied: true },
    { name: "20260102000000_b", applied: true },
  ]);
  await t.db.query("INSERT INTO mtest_a.things (id, name) VALUES (1, 'x')");
  const second = await migrate(t.db, "mtest_a", dir);
  assert.ok(second.every((m) => !m.applied));
  const { rows } = await t.db.query(
    "SELECT migration_name, applied_steps_count FROM mtest_a._prisma_migrations ORDER BY migration_name",
  );
  assert.deepEqual(
    rows.map((r) => r.migration_name),
    ["20260101000000_a", "20260102000000_b"],
  );
});

test("a failing migration leaves nothing behind and is not recorded", async () => {
  const dir = migrationsDir({ "20260101000000_bad": "CREATE TABLE half (id int); SELECT no_such_function();" });
  await assert.rejects(migrate(t.db, "mtest_b", dir), /20260101000000_bad failed/);
  const { rows } = await t.db.query(
    "SELECT to_regclass('mtest_b.half') AS t, (SELECT count(*)::int FROM mtest_b._prisma_migrations) AS n",
  );
  assert.equal(rows[0].t, null);
  assert.equal(rows[0].n, 0);
});

test("an applied migration whose file was edited is refused", async () => {
  const dir = migrationsDir({ "20260101000000_a": "CREATE TABLE t1 (id int);" });
  await migrate(t.db, "mtest_c", dir);
  writeFileSync(join(dir, "20260101000000_a", "migration.sql"), "CREATE TABLE t1 (id bigint);");
  await assert.rejects(migrate(t.db, "mtest_c", dir), /edited after it was applied/);
});

test("concurrent runners apply each migration exactly once", async () => {
  const dir = migrationsDir({ "20260101000000_a": "CREATE TABLE once (id int);" });
  const results = await Promise.all([
    migrate(t.db, "mtest_d", dir),
    migrate(t.db, "mtest_d", dir),
    migrate(t.db, "mtest_d", dir),
  ]);
  assert.equal(results.flat().filter((m) => m.applied).length, 1);
});
