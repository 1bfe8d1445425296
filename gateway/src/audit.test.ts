/**
 * auditTime (audit.ts), the `at` of every audit record: the same text as `Date.prototype.toISOString`
 * however the calls fall around second, minute, day and year boundaries.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { auditTime } from "./audit.ts";

test("auditTime reads as toISOString, across second boundaries and out of order", () => {
  const edges = [
    0,
    1,
    999,
    1_000,
    1_001,
    Date.UTC(2026, 10, 26, 23, 59, 59, 999),
    Date.UTC(2026, 10, 27),
    Date.UTC(2027, 0, 1, 0, 0, 0, 7),
  ];
  const times = [...edges, ...edges.slice().reverse()];
  for (let i = 0; i < 5_000; i++) times.push(Date.UTC(2026, 10, 26) + i * 337);
  for (const ms of times) assert.equal(auditTime(ms), new Date(ms).toISOString(), `at ${ms}`);
  assert.match(auditTime(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
