/**
 * DeadlineSweep: each deadline fires once at its own time, in order, unless cleared; none fires early;
 * a step of the wall clock moves none. The mocked-timer tests give the sweep `Date.now` as its clock
 * (mocked timers move `Date`, not `performance.now`); the clock-step tests use the real one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import { spawnSync } from "node:child_process";
import { DeadlineSweep } from "./deadline-sweep.ts";

test("deadlines fire in time order, each at its own time, and a cleared one never", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 1_000_000 });
  const sweep = new DeadlineSweep(() => Date.now());
  const fired: [string, number][] = [];
  const mark = (name: string) => () => fired.push([name, Date.now()]);
  sweep.after(300, mark("c"));
  sweep.after(100, mark("a")); // earlier than the armed one: the timer is armed again
  const cleared = sweep.after(200, mark("cleared"));
  sweep.after(200, mark("b"));
  sweep.after(5_000, mark("d"));
  sweep.clear(cleared);
  sweep.clear(cleared); // twice is harmless
  assert.equal(sweep.size, 4);
  t.mock.timers.tick(99);
  assert.deepEqual(fired, [], "nothing before its time");
  t.mock.timers.tick(1);
  assert.deepEqual(fired, [["a", 1_000_100]]);
  t.mock.timers.tick(100);
  t.mock.timers.tick(100);
  assert.deepEqual(fired, [
    ["a", 1_000_100],
    ["b", 1_000_200],
    ["c", 1_000_300],
  ]);
  t.mock.timers.tick(4_700);
  assert.equal(fired.length, 4);
  assert.deepEqual(fired[3], ["d", 1_005_000]);
  assert.equal(sweep.size, 0);
});

test("what a deadline does when it fires may set and clear others", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  const sweep = new DeadlineSweep(() => Date.now());
  const fired: string[] = [];
  const later = sweep.after(50, () => fired.push("later"));
  sweep.after(10, () => {
    fired.push("first");
    sweep.clear(later);
    sweep.after(5, () => fired.push("set by first"));
  });
  t.mock.timers.tick(10);
  t.mock.timers.tick(5);
  t.mock.timers.tick(100);
  assert.deepEqual(fired, ["first", "set by first"]);
});

test("many deadlines set and cleared in any order: those left fire in order, once", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  const sweep = new DeadlineSweep(() => Date.now());
  const fired: number[] = [];
  const kept: number[] = [];
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed;
  };
  const set = Array.from({ length: 500 }, (_, i) => {
    const ms = 1 + (next() % 1_000);
    return { ms, i, d: sweep.after(ms, () => fired.push(ms)) };
  });
  for (const { ms, i, d } of set) {
    if (i % 3 === 0) sweep.clear(d);
    else kept.push(ms);
  }
  t.mock.timers.tick(2_000);
  assert.deepEqual(
    fired,
    kept.sort((a, b) => a - b),
  );
});

test("what comes due runs outside the context of the call that set it", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  const calls = new AsyncLocalStorage<string>();
  const sweep = calls.run("call that made the sweep", () => new DeadlineSweep(() => Date.now()));
  const seen: (string | undefined)[] = [];
  calls.run("call 1", () => sweep.after(10, () => seen.push(calls.getStore())));
  calls.run("call 2", () => sweep.after(20, () => seen.push(calls.getStore())));
  t.mock.timers.tick(10);
  t.mock.timers.tick(10);
  assert.deepEqual(seen, [undefined, undefined]);
});

test("a set deadline keeps the process alive until it fires; a cleared one does not", () => {
  const script = (clear: boolean) => `
    import { DeadlineSweep } from ${JSON.stringify(new URL("./deadline-sweep.ts", import.meta.url).href)};
    const sweep = new DeadlineSweep();
    const d = sweep.after(${clear ? 600_000 : 200}, () => console.log("fired"));
    ${clear ? "sweep.clear(d);" : ""}
  `;
  const run = (clear: boolean) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script(clear)], { encoding: "utf8", timeout: 60_000 });
  const set = run(false);
  assert.equal(set.status, 0, set.stderr);
  assert.equal(set.stdout.trim(), "fired");
  const cleared = run(true);
  // Killed at the spawn's timeout (status null) if the cleared deadline's ten minutes held it.
  assert.equal(cleared.status, 0, "the process ended without waiting for a cleared deadline");
  assert.equal(cleared.stdout.trim(), "");
});

test("a wall clock stepped back after a deadline is set does not hold it up", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_800_000_000_000 });
  const sweep = new DeadlineSweep();
  const fired = new Promise<void>((resolve) => sweep.after(50, resolve));
  t.mock.timers.setTime(1_800_000_000_000 - 3_600_000); // an hour back, as an NTP step might
  const late = new Promise<"held">((resolve) => setTimeout(() => resolve("held"), 10_000).unref());
  const first = await Promise.race([fired.then(() => "fired" as const), late]);
  sweep.stop(); // a held deadline would otherwise keep the test's process for the hour
  assert.equal(first, "fired");
});

test("a wall clock stepped forward does not fire a deadline early; an epoch deadline is read once", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_800_000_000_000 });
  const sweep = new DeadlineSweep();
  const fired: string[] = [];
  sweep.after(60_000, () => fired.push("in a minute"));
  sweep.at(1_800_000_000_000 + 60_000, () => fired.push("at the epoch time a minute on"));
  sweep.at(1_800_000_000_000 + 20, () => fired.push("at the epoch time 20 ms on"));
  t.mock.timers.setTime(1_800_000_000_000 + 3_600_000); // an hour forward
  await new Promise<void>((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(fired, ["at the epoch time 20 ms on"], "only the deadline that came due");
  assert.equal(sweep.size, 2);
  sweep.stop();
});
