/**
 * The keys service's Prisma schema and its hand-written migrations agree, and the runner records
 * them the way `prisma migrate deploy` would.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { diffSchema, migrate, repoRoot } from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
before(async () => {
  t = await startTestStack({ services: ["keys"] });
});
after(async () => t?.stop());

test("schema.prisma matches the tables the migrations create", async () => {
  const problems = await diffSchema(t.db, "keys", join(repoRoot(), "services/keys/prisma/schema.prisma"));
  assert.deepEqual(problems, []);
});

test("migrations are recorded in _prisma_migrations and not re-applied", async () => {
  const { rows } = await t.db.query(`SELECT migration_name, checksum, finished_at FROM keys._prisma_migrations`);
  assert.ok(rows.length >= 1);
  for (const r of rows) {
    assert.match(r.checksum, /^[0-9a-f]{64}$/);
    assert.ok(r.finished_at);
  }
  const again = await migrate(t.db, "keys", join(repoRoot(), "services/keys/prisma/migrations"));
  assert.ok(again.every((m) => !m.applied));
});

test("the diff notices a column the schema does not declare", async () => {
  await t.db.query(`ALTER TABLE keys.audit_records ADD COLUMN sneaky text`);
  try {
    const problems = await diffSchema(t.db, "keys", join(repoRoot(), "services/keys/prisma/schema.prisma"));
    assert.deepEqual(problems, ["audit_records.sneaky: in the database, missing in schema.prisma"]);
  } finally {
    await t.db.query(`ALTER TABLE keys.audit_records DROP COLUMN sneaky`);
  }
});

test("the index schema.prisma cannot express exists: one expired event per key", async () => {
  const { rows } = await t.db.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'keys' AND indexname = 'key_events_expired_once'`);
  assert.equal(rows.length, 1);
  assert.match(rows[0].indexdef, /UNIQUE INDEX .* \(key_id\) WHERE \(kind = 'expired'::text\)/);
});
