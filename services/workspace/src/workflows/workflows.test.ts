/**
 * Unit tests of the delivery building blocks: delivery through the kit's SSRF guard,
 * the signature, and the backoff schedule. The end-to-end delivery is in test/events-workflows.test.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SsrfGuard } from "@gantry/kit";
import { sign, verifySignature } from "./sign.ts";
import { deliver } from "./deliver.ts";
import { backoffMs } from "./deliverer.ts";

describe("SSRF guard (the kit's, kit/src/ssrf.ts; its full table is in kit/src/ssrf.test.ts)", () => {
  test("a delivery to a hostname resolving to loopback is never sent without the escape hatch", async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const attempt = (guard: SsrfGuard, url: string) =>
      deliver({
        url: new URL(url),
        secret: "s".repeat(16),
        body: "{}",
        runId: "wfr_1",
        attempt: 1,
        timeoutMs: 2000,
        guard,
      });
    try {
      // Port allowed so that only the address rule can refuse it.
      const strict = new SsrfGuard({ allowedPorts: [port] });
      for (const url of [
        `http://localhost:${port}/x`,
        `http://2130706433:${port}/x`,
        `http://[::ffff:127.0.0.1]:${port}/`,
      ]) {
        const refused = await attempt(strict, url);
        assert.equal(refused.ok, false, url);
        assert.equal(refused.permanent, true, url);
        assert.match(refused.error!, /SSRF guard/, url);
      }
      assert.equal(hits, 0);
      const sent = await attempt(
        new SsrfGuard({ allowLoopback: true, log: { warn: () => {} } as never }),
        `http://localhost:${port}/x`,
      );
      assert.equal(sent.ok, true);
      assert.equal(hits, 1);
    } finally {
      server.close();
    }
  });

  test("a redirect is not followed: the 3xx is a permanent failure", async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(302, { location: "http://169.254.169.254/" }).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await deliver({
        url: new URL(`http://127.0.0.1:${port}/x`),
        secret: "s".repeat(16),
        body: "{}",
        runId: "wfr_1",
        attempt: 1,
        timeoutMs: 2000,
        guard: new SsrfGuard({ allowLoopback: true, log: { warn: () => {} } as never }),
      });
      assert.deepEqual(out, { ok: false, statusCode: 302, error: "endpoint answered HTTP 302", permanent: true });
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
