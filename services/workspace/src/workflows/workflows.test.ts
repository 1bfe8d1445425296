/**
 * Unit tests of the delivery building blocks: the SSRF guard (literal addresses and DNS answers),
 * the signature, and the backoff schedule. The end-to-end delivery is in test/events-workflows.test.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { addressAllowed, assertLiteralAllowed, guardedLookup } from "./ssrf.ts";
import { sign, verifySignature } from "./sign.ts";
import { deliver } from "./deliver.ts";
import { backoffMs } from "./deliverer.ts";

describe("SSRF guard", () => {
  test("refuses non-public addresses; the loopback switch allows loopback only", () => {
    for (const a of [
      "127.0.0.1",
      "10.0.0.5",
      "172.16.3.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "2001:db8::1",
    ]) {
      assert.equal(addressAllowed(a, false), false, a);
    }
    for (const a of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])
      assert.equal(addressAllowed(a, false), true, a);
    assert.equal(addressAllowed("127.0.0.1", true), true);
    assert.equal(addressAllowed("::1", true), true);
    assert.equal(addressAllowed("10.0.0.1", true), false);
    assert.equal(addressAllowed("169.254.169.254", true), false);
    assert.equal(addressAllowed("not-an-ip", true), false);
    assert.throws(() => assertLiteralAllowed("[::1]", false), /SSRF guard/);
    assert.doesNotThrow(() => assertLiteralAllowed("hooks.example.com", false));
  });

  test("DNS answers are checked where the socket resolves them (localhost → refused)", async () => {
    const lookup = guardedLookup(false);
    const err = await new Promise<NodeJS.ErrnoException | null>((r) => lookup("localhost", {}, (e) => r(e)));
    assert.equal(err?.code, "EBLOCKED");
    const allowed = await new Promise<unknown>((r) =>
      guardedLookup(true)("localhost", { all: true }, (e, addrs) => r(e ?? addrs)),
    );
    assert.ok(Array.isArray(allowed) && allowed.length > 0);
  });

  test("a delivery to a hostname resolving to loopback is never sent without the switch", async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const refused = await deliver({
        url: new URL(`http://localhost:${port}/x`),
        secret: "s".repeat(16),
        body: "{}",
        runId: "wfr_1",
        attempt: 1,
        timeoutMs: 2000,
        allowLoopback: false,
      });
      assert.equal(refused.ok, false);
      assert.equal(refused.permanent, true);
      assert.match(refused.error!, /SSRF guard/);
      assert.equal(hits, 0);
      const sent = await deliver({
        url: new URL(`http://localhost:${port}/x`),
        secret: "s".repeat(16),
        body: "{}",
        runId: "wfr_1",
        attempt: 1,
        timeoutMs: 2000,
        allowLoopback: true,
      });
      assert.equal(sent.ok, true);
      assert.equal(hits, 1);
    } finally {
      server.close();
    }
  });
});

describe("signature", () => {
  test("HMAC-SHA256 over `<t>.<body>`, verified in constant time with a tolerance", () => {
    const header = sign("whsec-0123456789abcdef", 1_700_000_000, '{"a":1}');
    assert.match(header, /^t=1700000000,v1=[0-9a-f]{64}$/);
    assert.equal(verifySignature("whsec-0123456789abcdef", header, '{"a":1}', 1_700_000_100), true);
    assert.equal(verifySignature("whsec-0123456789abcdef", header, '{"a":2}', 1_700_000_100), false);
    assert.equal(verifySignature("whsec-0123456789abcdef", header, '{"a":1}', 1_700_001_000), false);
    assert.equal(verifySignature("other-secret-0000000", header, '{"a":1}', 1_700_000_100), false);
    assert.equal(verifySignature("whsec-0123456789abcdef", undefined, '{"a":1}'), false);
  });
});

describe("backoff", () => {
  test("doubles from the base and is capped", () => {
    const config = { WORKFLOW_RETRY_BASE_MS: 2000, WORKFLOW_RETRY_MAX_MS: 10_000 };
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => backoffMs(config, n)),
      [2000, 4000, 8000, 10_000, 10_000],
    );
  });
});
