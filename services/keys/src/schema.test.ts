/**
 * The keys service's schema checks: the kit's shared suite (schema.prisma vs the migrations, the
 * migration records, the column diff, row-level security on every tenant table) plus the index
 * schema.prisma cannot express.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { schemaSuite } from "@gantry/infra/testing/schema-suite.ts";

const { stack } = schemaSuite("keys");

test("the index schema.prisma cannot express exists: one expired event per key", async () => {
  const { rows } = await stack().db.query(
    `SELECT indexdef FROM pg_indexes WHERE schemaname = 'keys' AND indexname = 'key_events_expired_once'`,
  );
  assert.equal(rows.length, 1);
  assert.match(rows[0].indexdef, /UNIQUE INDEX .* \(key_id\) WHERE \(kind = 'expired'::text\)/);
});
