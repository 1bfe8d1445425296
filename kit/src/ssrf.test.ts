/**
 * The kit's SSRF guard (kit/src/ssrf.ts): URL rules, address classes (every IPv4 spelling, mapped
 * and NAT64 IPv6, 0.0.0.0), redirects re-checked hop by hop, DNS rebinding caught at connect time,
 * size and time caps, and the test-only loopback escape hatch.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { LookupAddress } from "node:dns";
import { addressAllowed, SsrfBlockedError, SsrfFetchError, SsrfGuard, type SsrfResolver } from "./ssrf.ts";
import { type PooledOrigin, scriptedResolver, startPooledOrigin } from "./ssrf-test-origin.ts";

let server: http.Server;
let port = 0;
const hits: string[] = [];
before(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    const u = new URL(req.url ?? "/", "http://x");
    if (u.pathname === "/redirect") {
      res.writeHead(302, { location: u.searchParams.get("to") ?? "/" });
      return res.end();
    }
    if (u.pathname === "/loop") {
      res.writeHead(302, { location: `/loop?n=${Number(u.searchParams.get("n") ?? 0) + 1}` });
      return res.end();
    }
    if (u.pathname === "/big") {
      res.writeHead(200, { "content-type": "text/plain" });
      return res.end("x".repeat(100_000));
    }
    if (u.pathname === "/slow") {
      res.writeHead(200);
      res.write("a");
      return; // never ends
    }
    if (u.pathname === "/echo-auth") return res.end(req.headers.authorization ?? "none");
    res.end("hello");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

async function refusal(p: Promise<unknown>): Promise<SsrfBlockedError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SsrfBlockedError, `expected a refusal, got ${(err as Error).stack}`);
    return err;
  }
  assert.fail("expected a refusal, got a response");
}

describe("SSRF guard: URLs and literal addresses", () => {
  const guard = new SsrfGuard();
  const table: [string, string][] = [
    ["http://2130706433/", "address"], // decimal 127.0.0.1
    ["http://0x7f.1/", "address"], // hex + short form
    ["http://0177.0.0.1/", "address"], // octal
    ["http://0x7f000001/", "address"],
    ["http://127.1/", "address"],
    ["http://[::ffff:169.254.169.254]/", "address"], // IPv4-mapped metadata
    ["http://[::ffff:127.0.0.1]/", "address"],
    ["http://[::ffff:1.1.1.1]/", "address"], // mapped forms are refused as such
    ["http://[64:ff9b::a9fe:a9fe]/", "address"], // NAT64 of 169.254.169.254
    ["http://[2002:7f00:1::]/", "address"], // 6to4
    ["http://0.0.0.0/", "address"],
    ["http://0/", "address"],
    ["http://[::]/", "address"],
    ["http://[::1]/", "address"],
    ["http://169.254.169.254/latest/meta-data/", "address"],
    ["http://10.0.0.1/", "address"],
    ["http://172.16.0.1/", "address"],
    ["http://192.168.1.1/", "address"],
    ["http://100.64.0.1/", "address"], // CGNAT
    ["http://224.0.0.1/", "address"],
    ["http://255.255.255.255/", "address"],
    ["http://[fe80::1]/", "address"],
    ["http://[fd00:ec2::254]/", "address"], // AWS IPv6 metadata (unique-local)
    ["ftp://example.com/", "scheme"],
    ["file:///etc/passwd", "scheme"],
    ["gopher://example.com/", "scheme"],
    ["http://user:pw@example.com/", "credentials"],
    ["http://example.com:8080/", "port"],
    ["https://example.com:22/", "port"],
    ["not a url", "url"],
  ];
  for (const [url, rule] of table) {
    test(`${url} → refused (${rule})`, async () => {
      const before = hits.length;
      const err = await refusal(guard.fetch(url));
      assert.equal(err.rule, rule);
      assert.equal(err.code, "EBLOCKED");
      assert.equal(hits.length, before);
    });
  }

  test("address classes: only unicast; the escape hatch adds loopback and nothing else", () => {
    for (const a of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"]) assert.equal(addressAllowed(a), true, a);
    for (const a of ["127.0.0.1", "::1", "0.0.0.0", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "not-an-ip"])
      assert.equal(addressAllowed(a), false, a);
    assert.equal(addressAllowed("127.0.0.1", true), true);
    assert.equal(addressAllowed("::1", true), true);
    for (const a of ["10.0.0.1", "169.254.169.254", "0.0.0.0", "::ffff:127.0.0.1", "100.64.0.1"])
      assert.equal(addressAllowed(a, true), false, a);
  });

  test("public URLs with default ports pass the URL check; the port allow-list is configurable", () => {
    assert.equal(guard.checkUrl("https://example.com/a").host, "example.com");
    assert.equal(guard.checkUrl("http://example.com:80/").host, "example.com");
    assert.equal(new SsrfGuard({ allowedPorts: [8443] }).checkUrl("https://example.com:8443/").port, "8443");
    assert.throws(() => new SsrfGuard({ allowedPorts: [8443] }).checkUrl("https://example.com/"), /port 443/);
  });
});

describe("SSRF guard: names, connect time, rebinding", () => {
  test("a name resolving to loopback is refused without the escape hatch (localhost)", async () => {
    const guard = new SsrfGuard({ allowedPorts: [port] });
    const before = hits.length;
    const err = await refusal(guard.fetch(`http://localhost:${port}/`));
    assert.equal(err.rule, "address");
    assert.equal(hits.length, before);
  });

  test("a name with any disallowed address is refused as a whole", async () => {
    const resolve: SsrfResolver = (_h, cb) =>
      cb(null, [
        { address: "93.184.216.34", family: 4 },
        { address: "10.0.0.1", family: 4 },
      ]);
    const err = await refusal(new SsrfGuard({ resolve }).fetch("http://mixed.test/"));
    // The caller learns the name is refused, not what it resolves to inside (issue 27, item 8);
    // the log gets the address.
    assert.match(err.message, /mixed\.test does not resolve to a public address/);
    assert.doesNotMatch(err.message, /10\.0\.0\.1|93\.184/);
    assert.match(err.detail, /10\.0\.0\.1 \(private\)/);
  });

  test("DNS rebinding (public when checked, loopback when connecting) is caught at connect time", async () => {
    let calls = 0;
    const rebinding: SsrfResolver = (_h, cb) => {
      calls++;
      const answer: LookupAddress[] =
        calls === 1 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "127.0.0.1", family: 4 }];
      cb(null, answer);
    };
    const guard = new SsrfGuard({ resolve: rebinding, allowedPorts: [port] });
    const before = hits.length;
    const err = await refusal(guard.fetch(`http://rebind.test:${port}/secret`));
    assert.equal(err.rule, "address");
    assert.doesNotMatch(err.message, /127\.0\.0\.1/, "the internal answer stays out of the message");
    assert.match(err.detail, /127\.0\.0\.1/);
    assert.ok(calls >= 2, "the connection resolved the name again and was checked");
    assert.equal(hits.length, before, "no byte reached the loopback server");
  });

  test("a name that does not resolve is a fetch error (not a refusal)", async () => {
    const resolve: SsrfResolver = (h, cb) =>
      cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${h}`), { code: "ENOTFOUND" }), []);
    await assert.rejects(new SsrfGuard({ resolve }).fetch("https://nowhere.test/"), (err: unknown) => {
      assert.ok(err instanceof SsrfFetchError);
      assert.equal(err.stage, "connect");
      assert.match(err.message, /ENOTFOUND/);
      return true;
    });
  });

  test("the socket lookup hook itself refuses (as used by http.request and undici's connect.lookup)", async () => {
    const guard = new SsrfGuard();
    const err = await new Promise<NodeJS.ErrnoException | null>((r) =>
      guard.lookup("localhost", { all: true }, (e) => r(e)),
    );
    assert.ok(err instanceof SsrfBlockedError);
  });
});

describe("SSRF guard: redirects, caps, escape hatch", () => {
  const warnings: unknown[] = [];
  const guard = new SsrfGuard({ allowLoopback: true, log: { warn: (...a: unknown[]) => warnings.push(a) } as never });

  test("the escape hatch is off by default and logged loudly when on", async () => {
    assert.equal(new SsrfGuard().allowLoopback, false);
    assert.ok(warnings.length >= 1, "warned at creation");
    const res = await guard.fetch(`http://127.0.0.1:${port}/`);
    assert.equal(res.status, 200);
    assert.equal(res.text(), "hello");
    assert.equal(res.address, "127.0.0.1");
    assert.ok(warnings.length >= 2, "warned on use");
    await guard.fetch(`http://127.0.0.1:${port}/?api_key=s3cret`);
    const logged = JSON.stringify(warnings.at(-1));
    assert.match(logged, /127\.0\.0\.1/, "the warning names where the request went");
    assert.doesNotMatch(logged, /s3cret/, "never the query string: it may carry a credential");
  });

  test("redirects are followed by hand; the chain and final URL are reported", async () => {
    const res = await guard.fetch(`http://127.0.0.1:${port}/redirect?to=/final`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.chain, [`http://127.0.0.1:${port}/redirect?to=/final`, `http://127.0.0.1:${port}/final`]);
  });

  for (const target of [
    "http://0.0.0.0:PORT/",
    "http://[::ffff:127.0.0.1]:PORT/",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/",
    "http://2130706433:PORT/", // decimal loopback is fine with the hatch: shows the hop is parsed and judged
  ]) {
    const allowed = target.startsWith("http://2130706433");
    test(`redirect to ${target} → ${allowed ? "followed (loopback with the hatch)" : "refused at that hop"}`, async () => {
      const to = target.replace("PORT", String(port));
      const before = hits.length;
      const p = guard.fetch(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(to)}`);
      if (allowed) {
        assert.equal((await p).status, 200);
        assert.equal(hits.length, before + 2);
      } else {
        const err = await refusal(p);
        assert.equal(err.rule, "address");
        assert.equal(hits.length, before + 1, "only the first hop was sent");
      }
    });
  }

  test("every hop is re-checked from the top: scheme and credentials too", async () => {
    const hatch = await refusal(
      guard.fetch(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(`ftp://127.0.0.1:${port}/`)}`),
    );
    assert.equal(hatch.rule, "scheme");
    const creds = await refusal(
      guard.fetch(`http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(`http://u:p@127.0.0.1:${port}/`)}`),
    );
    assert.equal(creds.rule, "credentials");
  });

  test("at most 5 redirects", async () => {
    const err = await refusal(guard.fetch(`http://127.0.0.1:${port}/loop`));
    assert.equal(err.rule, "redirect_limit");
    const manual = await guard.fetch(`http://127.0.0.1:${port}/loop`, { redirect: "manual" });
    assert.equal(manual.status, 302);
    assert.equal(
      (await refusal(guard.fetch(`http://127.0.0.1:${port}/loop`, { redirect: "error" }))).rule,
      "redirect_refused",
    );
  });

  test("credentials are dropped on a cross-origin hop and kept on the same origin", async () => {
    const same = await guard.fetch(`http://127.0.0.1:${port}/redirect?to=/echo-auth`, {
      headers: { Authorization: "Bearer t" },
    });
    assert.equal(same.text(), "Bearer t");
    const cross = await guard.fetch(
      `http://127.0.0.1:${port}/redirect?to=${encodeURIComponent(`http://localhost:${port}/echo-auth`)}`,
      { headers: { Authorization: "Bearer t" } },
    );
    assert.equal(cross.text(), "none");
  });

  test("response size cap: truncated and flagged", async () => {
    const res = await guard.fetch(`http://127.0.0.1:${port}/big`, { maxBytes: 1000 });
    assert.equal(res.body.byteLength, 1000);
    assert.equal(res.truncated, true);
    const whole = await guard.fetch(`http://127.0.0.1:${port}/big`);
    assert.equal(whole.body.byteLength, 100_000);
    assert.equal(whole.truncated, false);
  });

  test("time cap: a response that never ends fails with ETIMEDOUT", async () => {
    const started = Date.now();
    await assert.rejects(guard.fetch(`http://127.0.0.1:${port}/slow`, { timeoutMs: 300 }), (err: unknown) => {
      assert.ok(err instanceof SsrfFetchError);
      assert.equal(err.code, "ETIMEDOUT");
      return true;
    });
    assert.ok(Date.now() - started < 5000);
  });
});

describe("SSRF guard: kept-alive connections", () => {
  let origin: PooledOrigin;
  before(async () => {
    origin = await startPooledOrigin();
  });
  after(() => origin.close());

  /** The pool learns that a connection is free again on the next turn of the event loop. */
  const settled = () => new Promise<void>((r) => setImmediate(r));

  test("two requests to one origin go over one connection, each reporting the address it was sent to", async () => {
    const dns = scriptedResolver("127.0.0.1");
    const guard = new SsrfGuard({ allowLoopback: true, resolve: dns.resolve, log: { warn: () => {} } as never });
    try {
      const before = origin.seen.length;
      const first = await guard.fetch(`http://pooled.test:${origin.port}/one`);
      await settled();
      const second = await guard.fetch(`http://pooled.test:${origin.port}/two`);
      assert.deepEqual([first.text(), second.text()], ["ok", "ok"]);
      assert.deepEqual([first.address, second.address], ["127.0.0.1", "127.0.0.1"]);
      const [a, b] = origin.seen.slice(before);
      assert.equal(b.from, a.from, "the second request came over the first one's connection");
      // Two pre-flight resolutions and one connect-time lookup: the kept connection asked nothing new.
      assert.equal(dns.calls, 3);

      // Another guard (other rules) never uses that connection: this one refuses loopback outright.
      const strict = new SsrfGuard({ allowedPorts: [origin.port], resolve: scriptedResolver("127.0.0.1").resolve });
      const err = await refusal(strict.fetch(`http://pooled.test:${origin.port}/three`));
      assert.equal(err.rule, "address");
      assert.equal(origin.seen.length, before + 2, "nothing reached the server under the strict guard");
    } finally {
      await guard.close();
    }
  });

  test("a name rebound to a private address after a connection was kept is refused at the next new connection", async () => {
    const dns = scriptedResolver("127.0.0.1");
    const guard = new SsrfGuard({ allowLoopback: true, resolve: dns.resolve, log: { warn: () => {} } as never });
    try {
      await guard.fetch(`http://pooled.test:${origin.port}/warm`);
      await settled();
      const lookups = dns.calls;
      // Keep the pooled connection busy so the next request needs a connection of its own.
      const { busy, release } = origin.hold();
      const hold = guard.fetch(`http://pooled.test:${origin.port}/hold`);
      await busy;
      assert.equal(dns.calls, lookups + 1, "the held request went over the kept connection (its pre-flight only)");
      const before = origin.seen.length;
      // The pre-flight still sees loopback (allowed here); the new connection's lookup sees 10.0.0.1.
      dns.then("127.0.0.1", "10.0.0.1");
      const err = await refusal(guard.fetch(`http://pooled.test:${origin.port}/rebound`));
      assert.equal(err.rule, "address");
      assert.match(err.detail, /10\.0\.0\.1 \(private\)/);
      assert.equal(origin.seen.length, before, "the rebound request reached no server");
      release();
      const kept = await hold;
      assert.equal(kept.text(), "held");
      assert.equal(kept.address, "127.0.0.1", "the kept connection stayed with the address it was checked at");
    } finally {
      await guard.close();
    }
  });
});
