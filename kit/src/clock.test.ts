/**
 * The test clock is honoured only under NODE_ENV=test, and refuses to start otherwise.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClock } from "./clock.ts";

test("without GANTRY_TEST_CLOCK_FILE the clock is Date.now", () => {
  assert.equal(createClock({ NODE_ENV: "test" }), Date.now);
  assert.equal(createClock({}), Date.now);
});

test("outside NODE_ENV=test the variable stops the process instead of shifting time", () => {
  assert.throws(
    () => createClock({ GANTRY_TEST_CLOCK_FILE: "/tmp/x", NODE_ENV: "production" }),
    /NODE_ENV is not "test"/,
  );
  assert.throws(() => createClock({ GANTRY_TEST_CLOCK_FILE: "/tmp/x" }), /NODE_ENV/);
});

test("under NODE_ENV=test the file's offset applies at once, every call", () => {
  const dir = mkdtempSync(join(tmpdir(), "clock-"));
  try {
    const file = join(dir, "offset");
    const now = createClock({ GANTRY_TEST_CLOCK_FILE: file, NODE_ENV: "test" });
    assert.ok(Math.abs(now() - Date.now()) < 1_000, "a missing file is offset 0");
    writeFileSync(file, String(3_600_000));
    assert.ok(Math.abs(now() - Date.now() - 3_600_000) < 1_000);
    writeFileSync(file, "");
    assert.ok(Math.abs(now() - Date.now()) < 1_000);
    writeFileSync(file, "soon");
    assert.throws(() => now(), /integer/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
