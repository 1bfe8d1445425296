/**
 * The bootstrap admin key: generated once and printed once when GANTRY_ADMIN_KEY is unset;
 * registered idempotently when it is set; a malformed one stops the service with a clear message.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { generateKey } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

function printedKeys(logs: string): string[] {
  return [...logs.matchAll(/"adminKey":"(gk_[0-9A-Za-z]{36})"/g)].map((m) => m[1]);
}

describe("GANTRY_ADMIN_KEY unset", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({ services: ["keys"], env: { GANTRY_ADMIN_KEY: undefined } });
  });
  after(async () => t?.stop());

  test("a key is generated, printed once, stored only as a hash, and works as an admin key", async () => {
    const printed = await eventually(async () => printedKeys(t.stack.logs())[0]);
    const res = await t.call("gantry.about", { input: {} }, printed).expect(200);
    assert.equal(res.body.result.tenant, "platform");
    assert.equal(res.body.result.admin, true);
    const { rows } = await t.db.query(
      "SELECT secret_hash, scopes, admin FROM keys.api_keys WHERE origin = 'bootstrap'",
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].scopes, ["*"]);
    const dump = await t.db.query("SELECT row_to_json(k)::text AS j FROM keys.api_keys k");
    assert.ok(
      dump.rows.every((r) => !r.j.includes(printed)),
      "the raw key is not stored",
    );
  });

  test("a restart neither generates another key nor prints it again", async () => {
    await t.stack.stopService("keys");
    await t.stack.startService("keys");
    await t.stack.waitHealthy("keys");
    assert.equal(printedKeys(t.stack.logs()).length, 1);
    const { rows } = await t.db.query("SELECT count(*)::int AS n FROM keys.api_keys WHERE origin = 'bootstrap'");
    assert.equal(rows[0].n, 1);
  });
});

describe("GANTRY_ADMIN_KEY set", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({ services: ["keys"] });
  });
  after(async () => t?.stop());

  test("is registered once, across restarts, as an admin of tenant platform with scope *", async () => {
    await t.stack.stopService("keys");
    await t.stack.startService("keys");
    await t.stack.waitHealthy("keys");
    const { rows } = await t.db.query("SELECT tenant, scopes, admin FROM keys.api_keys WHERE origin = 'bootstrap-env'");
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0], { tenant: "platform", scopes: ["*"], admin: true });
    assert.equal(printedKeys(t.stack.logs()).length, 0);
    assert.ok(!t.stack.logs().includes(t.adminKey), "the configured key never appears in the logs");
  });
});

describe("GANTRY_ADMIN_KEY malformed", () => {
  test("the keys service refuses to start and says why", async () => {
    const bad = `${generateKey().slice(0, -1)}!`;
    await assert.rejects(
      startTestStack({
        services: ["keys"],
        gateways: 0,
        restart: false,
        healthTimeoutMs: 15_000,
        env: { GANTRY_ADMIN_KEY: bad },
      }),
      (err: Error) => /GANTRY_ADMIN_KEY is not a well-formed Gantry key/.test(err.message),
    );
  });
});
