/**
 * The capture diff (src/diff.ts) in the `diff -u` format: equal texts give null; hunks carry three
 * lines of context and correct line ranges; insertions at the start and end; large inputs stay bounded.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { unifiedDiff } from "./diff.ts";

test("equal texts: no diff", () => {
  assert.equal(unifiedDiff("a\nb", "a\nb", "x", "y"), null);
});

test("one changed line in the middle: one hunk with three lines of context each side", () => {
  const before = ["1", "2", "3", "4", "5", "6", "7", "8", "9"].join("\n");
  const after = ["1", "2", "3", "4", "FIVE", "6", "7", "8", "9"].join("\n");
  assert.equal(
    unifiedDiff(before, after, "cap_a", "cap_b"),
    ["--- cap_a", "+++ cap_b", "@@ -2,7 +2,7 @@", " 2", " 3", " 4", "-5", "+FIVE", " 6", " 7", " 8", ""].join("\n"),
  );
});

test("changes far apart: two hunks; additions at the start and the end", () => {
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const changed = ["new first", ...lines.slice(0, 19), "line 20 changed"];
  const d = unifiedDiff(lines.join("\n"), changed.join("\n"), "a", "b") ?? "";
  const hunks = d.split("\n").filter((l) => l.startsWith("@@"));
  assert.deepEqual(hunks, ["@@ -1,3 +1,4 @@", "@@ -17,4 +18,4 @@"]);
  assert.match(d, /^\+new first$/m);
  assert.match(d, /^-line 20$/m);
  assert.match(d, /^\+line 20 changed$/m);
});

test("very large different texts stay bounded (replaced whole)", () => {
  const a = Array.from({ length: 5000 }, (_, i) => `a${i}`).join("\n");
  const b = Array.from({ length: 5000 }, (_, i) => `b${i}`).join("\n");
  const started = Date.now();
  const d = unifiedDiff(a, b, "a", "b") ?? "";
  assert.ok(Date.now() - started < 2000);
  assert.equal(d.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---")).length, 5000);
});
