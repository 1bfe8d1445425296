/**
 * The migration that moves screenshots' bytes into the blob store keeps the screenshots a deployment
 * already handed out links to: on a real Postgres holding a screenshot taken before it, the PNG is
 * afterwards the blob the service reads (`screenshots/<id>.png`, same bytes, type and expiry) and
 * the row no longer carries it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { migrate, repoRoot } from "@gantry/kit";
import { type EarlierMigrations, migrationsBefore } from "@gantry/infra/testing/migrations-before.ts";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

const MIGRATIONS = join(repoRoot(), "services", "web", "prisma", "migrations");
const BLOBS = "20261221000000_blobs";

let t: TestStack;
let earlier: EarlierMigrations;
before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  earlier = migrationsBefore(MIGRATIONS, BLOBS);
});
after(async () => {
  await t?.stop();
  earlier?.remove();
});

test("a screenshot stored before the blob store is served from it afterwards", async () => {
  await migrate(t.db, "web", earlier.dir);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
  const expires = new Date(Date.now() + 3_600_000);
  await t.db.query(
    `INSERT INTO web.screenshots (id, tenant, png, sha256, width, height, created_at, expires_at)
     VALUES ('art_old1', 'acme', $1, 'x', 1, 1, now(), $2)`,
    [png, expires],
  );
  const applied = await migrate(t.db, "web", MIGRATIONS);
  assert.deepEqual(
    applied.filter((m) => m.applied).map((m) => m.name),
    [BLOBS],
  );
  const { rows } = await t.db.query(`SELECT tenant, key, bytes, size, content_type, expires_at FROM web.blobs`);
  assert.deepEqual(rows, [
    {
      tenant: "acme",
      key: "screenshots/art_old1.png",
      bytes: png,
      size: png.length,
      content_type: "image/png",
      expires_at: expires,
    },
  ]);
  const columns = await t.db.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'web' AND table_name = 'screenshots'`,
  );
  assert.ok(!columns.rows.some((c) => c.column_name === "png"), "the row no longer carries the bytes");
});
