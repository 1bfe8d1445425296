/**
 * A client that disconnects stops the work it asked for, past the first hop: the gateway aborts
 * its gRPC call, the web service aborts the handler's outgoing request, and the server that request
 * went to sees it closed, long before any timeout of its own (web.research's search here, with a
 * search provider that never answers; the search timeout is set to a minute). A deadline the caller
 * sets (`Gantry-Timeout-Ms`) does the same when it passes, and the caller gets 504 `timeout`.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

/** A search provider that takes requests and never answers; it reports when each is abandoned. */
const taken: Array<{ at: number; closed: Promise<number> }> = [];
const provider = http.createServer((req) => {
  taken.push({
    at: performance.now(),
    closed: new Promise((resolve) => req.socket.once("close", () => resolve(performance.now()))),
  });
});

let t: TestStack;
let key: string;
before(async () => {
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/`;
  t = await startTestStack({
    services: ["keys", "web"],
    env: { WEB_SEARXNG_URL: base, WEB_SEARCH_TIMEOUT_MS: "60000", LOG_LEVEL: "error" },
  });
  key = (await t.insertKey({ tenant: "acme", name: "cancel" })).key;
});
after(async () => {
  await t?.stop();
  provider.closeAllConnections();
  await new Promise((resolve) => provider.close(resolve));
});

test("a caller that disconnects stops the service's outgoing request (observed by the server it went to)", async () => {
  const body = JSON.stringify({ input: { query: "does anyone read this" } });
  const req = http.request(`${t.url}/v1/abilities/web.research`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    },
  });
  req.on("error", () => {}); // we hang up on purpose
  req.end(body);
  const waitUntil = performance.now() + 20_000;
  while (taken.length === 0) {
    assert.ok(performance.now() < waitUntil, "the web service never reached the search provider");
    await new Promise((r) => setTimeout(r, 20));
  }
  const gaveUp = performance.now();
  req.destroy();
  const closedAt = await Promise.race([taken[0].closed, new Promise<number>((r) => setTimeout(() => r(-1), 15_000))]);
  assert.notEqual(closedAt, -1, "the search request was still open 15 s after the caller left");
  assert.ok(closedAt - gaveUp < 5_000, `closed ${Math.round(closedAt - gaveUp)} ms after the caller left`);
});

test("Gantry-Timeout-Ms: the call answers 504 timeout when it passes, and the service's request stops then", async () => {
  const before = taken.length;
  const started = performance.now();
  const res = await t
    .call("web.research", { input: { query: "a question nobody answers" } }, key)
    .set("Gantry-Timeout-Ms", "1500");
  const answeredAt = performance.now();
  assert.equal(res.status, 504, JSON.stringify(res.body));
  assert.equal(res.body.code, "timeout");
  assert.ok(answeredAt - started >= 1_400 && answeredAt - started < 5_000, `${Math.round(answeredAt - started)} ms`);
  assert.equal(taken.length, before + 1, "the search request was made");
  const closedAt = await Promise.race([
    taken[before].closed,
    new Promise<number>((r) => setTimeout(() => r(-1), 10_000)),
  ]);
  assert.notEqual(closedAt, -1, "the search request outlived the deadline");
  assert.ok(closedAt - started < 5_000);
});

test("Gantry-Timeout-Ms must be a whole number of ms within the ability's own deadline", async () => {
  const bad = await t.call("web.research", { input: { query: "q" } }, key).set("Gantry-Timeout-Ms", "soon");
  assert.equal(bad.status, 400);
  assert.equal(bad.body.details[0].path, "/headers/gantry-timeout-ms");
  const long = await t.call("web.research", { input: { query: "q" } }, key).set("Gantry-Timeout-Ms", "600000");
  assert.equal(long.status, 400);
  assert.equal(long.body.details[0].code, "maximum");
  assert.match(long.body.error, /at most 75000 ms/);
});
