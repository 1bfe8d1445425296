/**
 * Failed authentication is limited per client address, and only configured proxies may name that
 * address (issue 27, item 6). Through the real gateway and keys service.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import request from "supertest";
import { generateKey } from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { clientAddress } from "../src/client-address.ts";

const BUDGET = 5;
let t: TestStack;

before(async () => {
  t = await startTestStack({ services: ["keys"], env: { AUTH_FAILURES_PER_MINUTE: String(BUDGET) } });
});
after(() => t?.stop());

const call = (key: string, forwardedFor?: string) => {
  const r = request(t.url).post("/v1/abilities/key.inspect").set("Authorization", `Bearer ${key}`);
  return (forwardedFor ? r.set("X-Forwarded-For", forwardedFor) : r).send({ input: {} });
};

test("made-up keys from one address: 401 up to the budget, then 429 with retryAfterMs, whatever X-Forwarded-For claims", async () => {
  assert.equal((await call(t.adminKey)).status, 200, "a real user of the same address, seen before");
  for (let i = 0; i < BUDGET; i++) {
    const res = await call(generateKey(), `203.0.113.${i}`);
    assert.equal(res.status, 401, `failure ${i + 1} is a plain 401`);
  }
  // A new X-Forwarded-For each time: an untrusted header cannot pick a fresh budget.
  const over = await call(generateKey(), "198.51.100.7");
  assert.equal(over.status, 429);
  assert.equal(over.body.code, "rate_limited");
  assert.ok(over.body.retryAfterMs > 0 && over.body.retryAfterMs <= 60_000, JSON.stringify(over.body));
  assert.ok(Number(over.headers["retry-after"]) >= 1);
  // Made-up keys are refused before any lookup while the window lasts; a key the gateway already
  // holds as valid is still answered: one client's failures do not lock out the others behind it.
  assert.equal((await call(generateKey())).status, 429);
  assert.equal((await call(t.adminKey)).status, 200);
});

test("TRUSTED_PROXIES: only listed hops speak for the client; unset, the socket's address counts", () => {
  const req = (remote: string, xff?: string) =>
    ({
      socket: { remoteAddress: remote },
      connection: { remoteAddress: remote },
      headers: xff ? { "x-forwarded-for": xff } : {},
    }) as unknown as IncomingMessage;
  assert.equal(clientAddress("")(req("127.0.0.1", "203.0.113.9")), "127.0.0.1");
  const behindLoopback = clientAddress("loopback");
  assert.equal(behindLoopback(req("127.0.0.1", "203.0.113.9")), "203.0.113.9");
  // A client that is not a listed proxy cannot name another address.
  assert.equal(behindLoopback(req("198.51.100.4", "203.0.113.9")), "198.51.100.4");
  // Through a chain, the first untrusted hop from the socket is the client.
  assert.equal(clientAddress("loopback, 10.0.0.0/8")(req("127.0.0.1", "192.0.2.1, 10.1.2.3")), "192.0.2.1");
});
