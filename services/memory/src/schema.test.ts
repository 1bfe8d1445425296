/**
 * The memory service's Prisma schema and its hand-written migrations agree, and the runner records
 * them the way `prisma migrate deploy` would.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { diffSchema, migrate, repoRoot } from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
before(async () => {
  t = await startTestStack({ services: ["memory"], gateways: 0 });
});
after(async () => t?.stop());

test("schema.prisma matches the tables the migrations create", async () => {
  const problems = await diffSchema(t.db, "memory", join(repoRoot(), "services/memory/prisma/schema.prisma"));
  assert.deepEqual(problems, []);
});

test("migrations are recorded in _prisma_migrations and not re-applied", async () => {
  const { rows } = await t.db.query(`SELECT migration_name, checksum, finished_at FROM memory._prisma_migrations`);
  assert.ok(rows.length >= 1);
  for (const r of rows) {
    assert.match(r.checksum, /^[0-9a-f]{64}$/);
    assert.ok(r.finished_at);
  }
  const again = await migrate(t.db, "memory", join(repoRoot(), "services/memory/prisma/migrations"));
  assert.ok(again.every((m) => !m.applied));
});

test("the diff notices a column the schema does not declare", async () => {
  await t.db.query(`ALTER TABLE memory.decisions ADD COLUMN sneaky text`);
  try {
    const problems = await diffSchema(t.db, "memory", join(repoRoot(), "services/memory/prisma/schema.prisma"));
    assert.deepEqual(problems, ["decisions.sneaky: in the database, missing in schema.prisma"]);
  } finally {
    await t.db.query(`ALTER TABLE memory.decisions DROP COLUMN sneaky`);
  }
});
