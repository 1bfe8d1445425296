/**
 * A client that disconnects stops the work it asked for, past the first hop: the gateway aborts
 * its gRPC call, the web service aborts the handler's outgoing request, and the server that request
 * went to sees it closed, long before any timeout of its own (web.research's search here, with a
 * search provider that never answers; the search timeout is set to a minute).
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
