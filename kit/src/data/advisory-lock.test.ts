/**
 * withAdvisoryLock against real Postgres: two pools (two replicas) running work under one name take
 * turns, other names do not wait, and a holder that throws releases the lock.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { withAdvisoryLock } from "./advisory-lock.ts";

let t: TestStack;
let a: pg.Pool;
let b: pg.Pool;

before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  a = new pg.Pool({ connectionString: t.stack.env.DATABASE_URL, max: 2 });
  b = new pg.Pool({ connectionString: t.stack.env.DATABASE_URL, max: 2 });
  // Postgres stops at teardown before the pools' idle clients close: harmless.
  for (const pool of [a, b]) pool.on("error", () => {});
  // Connected before the test, so its timings are the lock's and not the connections'.
  await Promise.all([a.query("SELECT 1"), b.query("SELECT 1"), b.query("SELECT 1")]);
});
after(async () => {
  await a?.end();
  await b?.end();
  await t?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("two replicas under one name take turns; another name does not wait", async () => {
  const log: string[] = [];
  const work = (pool: pg.Pool, name: string, who: string) =>
    withAdvisoryLock(pool, name, async () => {
      log.push(`${who} in`);
      await sleep(1_000);
      log.push(`${who} out`);
    });
  const first = work(a, "build:acme:shop", "a");
  await sleep(50);
  const other = work(b, "build:acme:other", "c");
  const second = work(b, "build:acme:shop", "b");
  await Promise.all([first, second, other]);
  const shop = log.filter((l) => !l.startsWith("c"));
  assert.deepEqual(shop, ["a in", "a out", "b in", "b out"], "never inside together");
  assert.ok(log.indexOf("c in") < log.indexOf("a out"), "another name ran meanwhile");
});

test("a holder that throws releases the lock", async () => {
  await assert.rejects(
    withAdvisoryLock(a, "build:fails", async () => {
      throw new Error("build failed");
    }),
    /build failed/,
  );
  const started = Date.now();
  await withAdvisoryLock(b, "build:fails", async () => {});
  assert.ok(Date.now() - started < 2_000);
});
