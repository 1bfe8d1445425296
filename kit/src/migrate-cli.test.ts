/**
 * The one-shot migration command (what the Helm chart's hook Jobs run) on a real Postgres: applies
 * a service's migrations into its schema, is idempotent, refuses bad usage, and fails clearly when
 * Postgres never answers.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runCli } from "@gantry/infra/testing/run-cli.ts";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

const CLI = fileURLToPath(new URL("./migrate-cli.ts", import.meta.url));

let t: TestStack;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
});
after(async () => t?.stop());

const run = (args: string[], env: Record<string, string | undefined>) => runCli(CLI, args, env);

test("migrate keys applies the keys schema, then finds it up to date", async () => {
  await t.db.query("DROP SCHEMA IF EXISTS keys CASCADE");
  const first = await run(["keys"], { DATABASE_URL: t.stack.env.DATABASE_URL });
  assert.equal(first.code, 0, first.out);
  assert.match(first.out, /"msg":"migrations applied"/);
  const { rows } = await t.db.query(
    "SELECT count(*)::int AS n FROM keys._prisma_migrations WHERE finished_at IS NOT NULL",
  );
  assert.ok(rows[0].n >= 1);
  const tables = await t.db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'keys'");
  assert.ok(
    tables.rows.some((r) => r.table_name === "api_keys"),
    "api_keys table exists",
  );

  const second = await run(["keys"], { DATABASE_URL: t.stack.env.DATABASE_URL });
  assert.equal(second.code, 0, second.out);
  assert.match(second.out, /"msg":"schema up to date"/);
});

test("migrate all covers every service with tables", async () => {
  const res = await run(["all"], { DATABASE_URL: t.stack.env.DATABASE_URL });
  assert.equal(res.code, 0, res.out);
  for (const schema of ["keys", "memory", "workspace"]) assert.match(res.out, new RegExp(`"schema":"${schema}"`));
});

test("usage errors exit 64 and name the services", async () => {
  const none = await run([], {});
  assert.equal(none.code, 64);
  assert.match(none.out, /usage: .*keys\|connections/);
  const bad = await run(["nope"], {});
  assert.equal(bad.code, 64);
  assert.match(bad.out, /unknown service "nope"/);
});

test("without DATABASE_URL, or when Postgres never answers, it fails with the reason", async () => {
  const missing = await run(["keys"], {});
  assert.equal(missing.code, 1);
  assert.match(missing.out, /DATABASE_URL must be set/);
  // Port 1 on loopback: refused at once; a zero wait gives up after the first attempt.
  const down = await run(["keys"], {
    DATABASE_URL: "postgres://gantry:gantry@127.0.0.1:1/gantry",
    MIGRATE_WAIT_SECONDS: "0",
  });
  assert.equal(down.code, 1);
  assert.match(down.out, /did not accept connections within 0 s/);
});
