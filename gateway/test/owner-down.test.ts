/**
 * An owner that is down answers 503 with retryAfterMs; once it is back, its abilities answer again.
 * A crashed service is restarted by the runner.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { abilityById } from "@gantry/proto/catalogue";
import { generateKey } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
before(async () => {
  t = await startTestStack({ services: ["keys", "web"], env: { GANTRY_DISABLED_ABILITIES: "web.browse" } });
});
after(async () => t?.stop());

describe("owner unavailable", () => {
  test("503 with retryAfterMs and Retry-After while web is stopped, 501 again after it restarts", async () => {
    const input = abilityById.get("web.browse")!.example;
    await t.call("web.browse", { input }).expect(501);
    await t.stack.stopService("web");
    const res = await t.call("web.browse", { input }).expect(503);
    assert.equal(res.body.code, "unavailable");
    assert.equal(res.body.ability, "web.browse");
    assert.ok(res.body.retryAfterMs > 0);
    assert.ok(Number(res.headers["retry-after"]) >= 1);
    assert.doesNotMatch(`${res.body.error} ${res.body.reason}`, /127\.0\.0\.1|localhost|ECONNREFUSED|port|\d{4,5}/i);
    await t.stack.startService("web");
    await eventually(async () => (await t.call("web.browse", { input })).status === 501, 15_000);
  });

  test("services that are not running answer 503 too (workspace was never started)", async () => {
    const a = abilityById.get("contact.create")!;
    await t.call(a.id, { input: a.example }).expect(503);
  });

  test("with the keys service down, malformed keys are still refused (no lookup needed) and well-formed ones get 503", async () => {
    const fresh = generateKey();
    const malformed = fresh.slice(0, -1) + (fresh.endsWith("a") ? "b" : "a");
    await t.stack.stopService("keys");
    try {
      const bad = await t.call("gantry.about", { input: {} }, malformed).expect(401);
      assert.equal(bad.body.code, "unauthorized");
      const unknown = await t.call("gantry.about", { input: {} }, fresh).expect(503);
      assert.equal(unknown.body.code, "unavailable");
      assert.ok(unknown.body.retryAfterMs > 0);
    } finally {
      await t.stack.startService("keys");
      await t.stack.waitHealthy("keys");
    }
  });
});
