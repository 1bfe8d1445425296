/**
 * The migration runner on a real Postgres: applies in order, records like Prisma, is idempotent,
 * rolls back a failing migration whole, refuses an edited one, and serialises concurrent runners;
 * and creates the kit's own tables (idempotency_records) for the services topology says use them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { kitTablesOf, migrate, prepareSchema } from "./migrate.ts";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
/** The tests' migration directories, removed at the end (each run made seven and left them). */
const dirs: string[] = [];
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
});
after(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await t?.stop();
});

function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "gantry-migrations-"));
  dirs.push(dir);
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

test("the kit's idempotency table: created after the migrations, under row-level security, harmless when a migration made it", async () => {
  assert.equal(kitTablesOf("workspace").idempotency, true);
  assert.equal(kitTablesOf("keys").idempotency, false);
  assert.equal(kitTablesOf("mtest_e").idempotency, false);
  const columns = async (schema: string) =>
    (
      await t.db.query(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'idempotency_records' ORDER BY column_name`,
        [schema],
      )
    ).rows;

  // A new service: no SQL of its own for the table.
  const fresh = migrationsDir({
    "20260101000000_a": "CREATE TABLE things (id int primary key, tenant text not null);",
  });
  const prepared = await prepareSchema(t.db, "mtest_e", fresh, { idempotency: true });
  assert.deepEqual(prepared.tenantTables.sort(), ["idempotency_records", "things"]);
  const { rows: rls } = await t.db.query(
    `SELECT relrowsecurity AS enabled, relforcerowsecurity AS forced FROM pg_class
      WHERE oid = to_regclass('"mtest_e"."idempotency_records"')`,
  );
  assert.deepEqual(rls, [{ enabled: true, forced: true }]);
  const { rows: pk } = await t.db.query(
    `SELECT conname FROM pg_constraint WHERE conrelid = to_regclass('"mtest_e"."idempotency_records"') AND contype = 'p'`,
  );
  assert.deepEqual(pk, [{ conname: "idempotency_records_pkey" }]);

  // An older service whose first migration created it: the same table, untouched; and again is a no-op.
  const older = migrationsDir({
    "20260101000000_init": `CREATE TABLE "idempotency_records" (
    "tenant" TEXT NOT NULL, "ability" TEXT NOT NULL, "key" TEXT NOT NULL, "input_hash" TEXT NOT NULL,
    "input" JSONB NOT NULL, "record_id" TEXT NOT NULL, "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("tenant", "ability", "key"));`,
  });
  assert.deepEqual(
    (await migrate(t.db, "mtest_f", older, { idempotency: true })).map((m) => m.applied),
    [true],
  );
  assert.deepEqual(
    (await migrate(t.db, "mtest_f", older, { idempotency: true })).map((m) => m.applied),
    [false],
  );
  assert.deepEqual(await columns("mtest_f"), await columns("mtest_e"));
  assert.equal((await columns("mtest_e")).length, 7);
});

test("a restart where everything is applied takes no lock and changes nothing; a new migration still waits for the lock and is applied", async () => {
  // The schema's owner, as the runner and the chart's Job migrate: a login held to row-level security.
  const password = "mtest-owner-pw";
  await t.db.query(`CREATE ROLE mtest_g_owner LOGIN NOBYPASSRLS PASSWORD '${password}'`);
  await t.db.query("CREATE SCHEMA mtest_g AUTHORIZATION mtest_g_owner");
  const { rows: db } = await t.db.query<{ name: string }>("SELECT current_database() AS name");
  await t.db.query(`GRANT CONNECT ON DATABASE "${db[0].name}" TO mtest_g_owner`);
  const url = new URL(t.stack.env.DATABASE_URL);
  url.username = "mtest_g_owner";
  url.password = password;
  const owner = new pg.Pool({ connectionString: url.toString(), max: 2 });
  const holder = await t.db.connect();
  try {
    const files: Record<string, string> = {
      "20260101000000_a": "CREATE TABLE things (id int primary key, tenant text not null);",
    };
    const dir = migrationsDir(files);
    assert.deepEqual(
      (await prepareSchema(owner, "mtest_g", dir)).migrations.map((m) => m.applied),
      [true],
    );
    // Another runner holds the migrator's lock: a restart with nothing to do does not wait for it.
    await holder.query("SELECT pg_advisory_lock(hashtext($1))", ["gantry-migrate:mtest_g"]);
    const restart = await Promise.race([
      prepareSchema(owner, "mtest_g", dir),
      new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 10_000).unref()),
    ]);
    assert.notEqual(restart, "waited", "the restart waited for the migrator's lock");
    assert.deepEqual(restart, { migrations: [{ name: "20260101000000_a", applied: false }], tenantTables: ["things"] });

    // A new migration is not a restart: it takes the lock (so it waits), then is applied.
    mkdirSync(join(dir, "20260102000000_b"));
    writeFileSync(join(dir, "20260102000000_b", "migration.sql"), "ALTER TABLE things ADD COLUMN name text;");
    let done = false;
    const next = prepareSchema(owner, "mtest_g", dir).finally(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(done, false, "a pending migration went past the migrator's lock");
    await holder.query("SELECT pg_advisory_unlock(hashtext($1))", ["gantry-migrate:mtest_g"]);
    assert.deepEqual(
      (await next).migrations.map((m) => [m.name, m.applied]),
      [
        ["20260101000000_a", false],
        ["20260102000000_b", true],
      ],
    );
  } finally {
    holder.release();
    await owner.end();
  }
});
