/**
 * Per-key rate limiting: in memory for one gateway, exact across two gateways sharing Redis.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

async function burst(url: string, key: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await request(url)
      .post("/v1/abilities/gantry.about")
      .set("Authorization", `Bearer ${key}`)
      .send({ input: {} });
    out.push(res.status);
  }
  return out;
}

describe("in-memory limiter (no REDIS_URL)", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({ services: ["keys"], env: { RATE_LIMIT_DEFAULT: "5", RATE_LIMIT_WINDOW_SECONDS: "60" } });
  });
  after(async () => t?.stop());

  test("the default limit refuses the 6th call with 429, retryAfterMs, Retry-After and RateLimit headers", async () => {
    const { key } = await t.insertKey();
    const first = await t.call("gantry.about", { input: {} }, key).expect(200);
    assert.equal(first.headers["ratelimit-policy"], '"per-key";q=5;w=60');
    assert.match(first.headers.ratelimit, /^"per-key";r=4;t=\d+$/);
    const statuses = await burst(t.url, key, 5);
    assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
    const res = await t.call("gantry.about", { input: {} }, key).expect(429);
    assert.equal(res.body.code, "rate_limited");
    assert.ok(res.body.retryAfterMs > 0 && res.body.retryAfterMs <= 60_000);
    assert.ok(Number(res.headers["retry-after"]) >= 1);
    assert.match(res.headers.ratelimit, /r=0/);
  });

  test("limits are per key: another key is unaffected", async () => {
    const a = await t.insertKey();
    const b = await t.insertKey();
    await burst(t.url, a.key, 6);
    await t.call("gantry.about", { input: {} }, b.key).expect(200);
  });

  test("a key's own rate limit overrides the default", async () => {
    const { key } = await t.insertKey({ rateLimit: 2, rateWindowSeconds: 10 });
    assert.deepEqual(await burst(t.url, key, 3), [200, 200, 429]);
    const res = await t.call("gantry.about", { input: {} }, key).expect(429);
    assert.equal(res.headers["ratelimit-policy"], '"per-key";q=2;w=10');
  });
});

describe("Redis limiter across two gateways", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({
      services: ["keys"],
      redis: true,
      gateways: 2,
      env: { RATE_LIMIT_DEFAULT: "6", RATE_LIMIT_WINDOW_SECONDS: "60" },
    });
  });
  after(async () => t?.stop());

  test("the count is shared: 6 allowed in total, whichever gateway is called", async () => {
    const [g1, g2] = t.stack.gatewayUrls;
    assert.ok(g1 && g2 && g1 !== g2);
    const health = await request(g1).get("/health").expect(200);
    assert.equal(health.body.rateLimiter, "redis");
    const { key } = await t.insertKey();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(...(await burst(i % 2 ? g2 : g1, key, 1)));
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429]);
  });
});
