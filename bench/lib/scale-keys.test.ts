/**
 * The --scale run's keys part in miniature (10³ and 10⁴ rows) against a real Postgres and the keys
 * service: every curve has a point per size with its samples, the lookups really found stored keys
 * (the part refuses to time otherwise), and 10⁷ joins the audit sizes only after 10⁶.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { auditSizes, keysScale } from "./scale-keys.ts";

test("audit.insert goes on to 10⁷ rows when the run's largest size is 10⁶, and no further otherwise", () => {
  assert.deepEqual(auditSizes([1e3, 1e4, 1e5, 1e6]), [1e3, 1e4, 1e5, 1e6, 1e7]);
  assert.deepEqual(auditSizes([1e3, 1e4]), [1e3, 1e4]);
});

test("keys scale curves: key auth and audit insert/read at 10³ and 10⁴ rows", async () => {
  const lines: string[] = [];
  const curves = await keysScale({ sizes: [1_000, 10_000], log: (l) => lines.push(l) });
  assert.deepEqual(
    curves.map((c) => c.id),
    ["key.auth", "key.auth:unknown", "audit.insert", "audit.recent"],
  );
  for (const c of curves) {
    assert.deepEqual(
      c.points.map((p) => p.rows),
      [1_000, 10_000],
      c.id,
    );
    for (const p of c.points)
      assert.ok(p.samples >= 100 && p.p50 > 0 && p.p99 >= p.p50, `${c.id} ${JSON.stringify(p)}`);
  }
  const [auth, , insert] = curves;
  // The key table and its indexes grew with the seeded keys; the audit table holds what was seeded.
  assert.ok(auth!.points[1]!.extra!.indexMiB > auth!.points[0]!.extra!.indexMiB, JSON.stringify(auth!.points));
  // A lookup reads an index page or more and the row's page, whatever the size.
  for (const p of auth!.points) assert.ok(p.extra!.pages >= 2 && p.extra!.sqlUs > 0, JSON.stringify(p.extra));
  assert.ok(insert!.points[1]!.extra!.tableMiB > insert!.points[0]!.extra!.tableMiB, JSON.stringify(insert!.points));
  assert.ok(
    lines.some((l) => l.startsWith("audit 10000: seeded")),
    lines.join("\n"),
  );
});
