/**
 * The SSRF guard's filtering proxy (kit/src/ssrf-proxy.ts), spoken to as a browser does: absolute-URI
 * requests for http and CONNECT tunnels for https. Refused targets answer 403 naming the rule and
 * never reach a server; allowed ones (loopback, with the test-only escape hatch) pass through.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { SsrfGuard, type SsrfResolver } from "./ssrf.ts";
import { type SsrfProxy, startSsrfProxy } from "./ssrf-proxy.ts";
import { type PooledOrigin, scriptedResolver, startPooledOrigin } from "./ssrf-test-origin.ts";

const quiet = { warn: () => {} };
let origin: http.Server;
let port = 0;
const hits: string[] = [];
before(async () => {
  origin = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "http://10.0.0.1/" });
      return res.end();
    }
    res.end(`hello ${req.url}`);
  });
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  port = (origin.address() as AddressInfo).port;
});
after(() => {
  origin.closeAllConnections();
  origin.close();
});

/** GET `url` through the proxy (absolute-URI form, as browsers send plain http to a proxy). */
function viaProxy(
  proxy: SsrfProxy,
  url: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port: proxy.port,
      method: "GET",
      path: url,
      headers: { host: new URL(url).host },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Opens a CONNECT tunnel; answers the proxy's status line and headers. */
function connect(proxy: SsrfProxy, target: string): Promise<{ head: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(proxy.port, "127.0.0.1", () =>
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`),
    );
    let buf = "";
    const onData = (c: Buffer) => {
      buf += c.toString("latin1");
      const end = buf.indexOf("\r\n\r\n");
      if (end >= 0) {
        socket.off("data", onData);
        resolve({ head: buf.slice(0, end), socket });
      }
    };
    socket.on("data", onData);
    socket.on("error", reject);
    socket.on("end", () => resolve({ head: buf, socket }));
  });
}

describe("SSRF proxy", () => {
  let strict: SsrfProxy;
  let loose: SsrfProxy;
  let rebinding: SsrfProxy;
  const blocked: string[] = [];
  before(async () => {
    strict = await startSsrfProxy(new SsrfGuard({ log: quiet }), {
      onBlocked: (url, rule) => blocked.push(`${rule} ${url}`),
    });
    loose = await startSsrfProxy(new SsrfGuard({ allowLoopback: true, log: quiet }));
    // A name that resolves to a public and a private address: refused as a whole.
    const resolve: SsrfResolver = (_host, cb) =>
      cb(null, [
        { address: "93.184.216.34", family: 4 },
        { address: "10.0.0.7", family: 4 },
      ]);
    rebinding = await startSsrfProxy(new SsrfGuard({ log: quiet, resolve }));
  });
  after(async () => {
    await strict.close();
    await loose.close();
    await rebinding.close();
  });

  test("plain http to private, metadata, mapped and loopback addresses: 403 with the rule, nothing sent", async () => {
    const before = hits.length;
    for (const url of [
      "http://10.0.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::ffff:169.254.169.254]/",
      "http://2130706433/",
      `http://127.0.0.1:${port}/`,
    ]) {
      const r = await viaProxy(strict, url);
      assert.equal(r.status, 403, url);
      assert.ok(["address", "port"].includes(String(r.headers["x-gantry-ssrf"])), url);
    }
    assert.equal(hits.length, before);
    assert.ok(blocked.some((b) => b.startsWith("address http://10.0.0.1/")));
  });

  test("with the test-only escape hatch, loopback passes; a redirect is passed to the browser, not followed", async () => {
    const r = await viaProxy(loose, `http://127.0.0.1:${port}/page?q=1`);
    assert.equal(r.status, 200);
    assert.equal(r.body, "hello /page?q=1");
    assert.equal(loose.addressOf("127.0.0.1", port), "127.0.0.1");
    const redirect = await viaProxy(loose, `http://127.0.0.1:${port}/redirect`);
    assert.equal(redirect.status, 302);
    const next = await viaProxy(loose, redirect.headers.location as string);
    assert.equal(next.status, 403); // the next hop comes back through the proxy and is judged there
  });

  test("CONNECT tunnels: private targets and disallowed ports refused; a rebinding name refused; loopback with the hatch", async () => {
    for (const target of ["10.0.0.1:443", "[::ffff:a9fe:a9fe]:443", "example.org:22", `127.0.0.1:${port}`]) {
      const { head, socket } = await connect(strict, target);
      assert.match(head, /^HTTP\/1\.1 403/, target);
      socket.destroy();
    }
    const rebound = await connect(rebinding, "rebind.example:443");
    assert.match(rebound.head, /^HTTP\/1\.1 403/);
    assert.match(rebound.head, /x-gantry-ssrf: address/);
    rebound.socket.destroy();

    const { head, socket } = await connect(loose, `127.0.0.1:${port}`);
    assert.match(head, /^HTTP\/1\.1 200/);
    const reply = await new Promise<string>((resolve) => {
      let buf = "";
      socket.on("data", (c) => {
        buf += c;
        if (buf.includes("hello /tunnel")) resolve(buf);
      });
      socket.write(`GET /tunnel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    assert.match(reply, /hello \/tunnel/);
    socket.destroy();
  });
});

describe("SSRF proxy: plain http over the guard's kept-alive connections", () => {
  let origin: PooledOrigin;
  before(async () => {
    origin = await startPooledOrigin();
  });
  after(() => origin.close());

  /** A proxy over a loopback-allowing guard whose DNS answers from `dns`; both ended after `fn`. */
  async function withProxy(dns: ReturnType<typeof scriptedResolver>, fn: (proxy: SsrfProxy) => Promise<void>) {
    const guard = new SsrfGuard({ allowLoopback: true, resolve: dns.resolve, log: quiet });
    const proxy = await startSsrfProxy(guard);
    try {
      await fn(proxy);
    } finally {
      await proxy.close();
      await guard.close();
    }
  }

  test("two requests to one origin share one upstream connection and one lookup", async () => {
    const dns = scriptedResolver("127.0.0.1");
    await withProxy(dns, async (proxy) => {
      const before = origin.seen.length;
      const first = await viaProxy(proxy, `http://pooled.test:${origin.port}/one`);
      await new Promise<void>((r) => setImmediate(r));
      const second = await viaProxy(proxy, `http://pooled.test:${origin.port}/two`);
      assert.deepEqual([first.body, second.body], ["ok", "ok"]);
      const [a, b] = origin.seen.slice(before);
      assert.equal(b.from, a.from, "the second request came over the first one's upstream connection");
      assert.equal(dns.calls, 1, "the kept connection asked the guard nothing new");
      assert.equal(proxy.addressOf("pooled.test", origin.port), "127.0.0.1");
    });
  });

  test("a name rebound to a private address after a connection was kept is refused at the next new connection", async () => {
    const dns = scriptedResolver("127.0.0.1");
    await withProxy(dns, async (proxy) => {
      assert.equal((await viaProxy(proxy, `http://pooled.test:${origin.port}/warm`)).status, 200);
      await new Promise<void>((r) => setImmediate(r));
      // Keep the kept connection busy so the next request needs a connection of its own.
      const { busy, release } = origin.hold();
      const hold = viaProxy(proxy, `http://pooled.test:${origin.port}/hold`);
      await busy;
      assert.equal(dns.calls, 1, "the held request went over the kept connection");
      const before = origin.seen.length;
      dns.then("10.0.0.1");
      const rebound = await viaProxy(proxy, `http://pooled.test:${origin.port}/rebound`);
      assert.equal(rebound.status, 403);
      assert.equal(rebound.headers["x-gantry-ssrf"], "address");
      assert.equal(origin.seen.length, before, "the rebound request reached no server");
      release();
      assert.equal((await hold).body, "held");
    });
  });
});
