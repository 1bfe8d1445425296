/** Lru: bounded, drops the entry used longest ago, not the one inserted first. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Lru } from "./lru.ts";

test("holds at most max entries and drops the least recently used", () => {
  const lru = new Lru<string, number>(3);
  lru.set("a", 1);
  lru.set("b", 2);
  lru.set("c", 3);
  assert.equal(lru.get("a"), 1); // a is now the newest
  lru.set("d", 4);
  assert.equal(lru.size, 3);
  assert.equal(lru.get("b"), undefined, "b was used longest ago");
  assert.deepEqual(
    [...lru].map(([k]) => k),
    ["c", "a", "d"],
  );
});

test("a flood of new keys never grows it past max", () => {
  const lru = new Lru<number, number>(100);
  for (let i = 0; i < 100_000; i++) lru.set(i, i);
  assert.equal(lru.size, 100);
  assert.equal(lru.get(99_999), 99_999);
  assert.equal(lru.get(0), undefined);
});

test("re-setting a key replaces it without growing", () => {
  const lru = new Lru<string, number>(2);
  lru.set("a", 1);
  lru.set("a", 2);
  assert.equal(lru.size, 1);
  assert.equal(lru.get("a"), 2);
  assert.throws(() => new Lru(0), RangeError);
});
