/**
 * web.browse in headless Chromium (the real Debian `chromium`): a page that needs JavaScript is
 * rendered; the browser's own traffic goes through the SSRF guard's proxy (a page cannot reach a
 * private or metadata address, nor be redirected to one); a page that hangs is killed at its deadline
 * and its renderer goes away; closing the service leaves no Chromium process behind, and neither does
 * a quiet spell (WEB_BROWSER_IDLE_MS), after which the next page starts a browser again.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { addressRange } from "@gantry/kit";
import { setTimeout as sleep } from "node:timers/promises";
import { startService, type ServiceHarness } from "../../../../infra/testing/service.ts";
import type { Context } from "../context.ts";
import { getFile, sha256 } from "../test/files.ts";
import { chromiumDescendants } from "../test/processes.ts";
import { type Site, startSite } from "../test/sites.ts";

const CHROMIUM = process.env.WEB_CHROMIUM_PATH ?? "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (set WEB_CHROMIUM_PATH)`;

let s: ServiceHarness<Context>;
let site: Site;
/** The web service on loopback pages with this machine's Chromium, plus `env`. */
const startWeb = (env: Record<string, string>) =>
  startService<Context>("web", { WEB_ALLOW_LOOPBACK: "true", WEB_CHROMIUM_PATH: CHROMIUM, LOG_LEVEL: "fatal", ...env });
before(async () => {
  if (skip) return;
  site = await startSite();
  s = await startWeb({ WEB_BROWSER_CONCURRENCY: "2" });
});
after(async () => {
  await s?.stop();
  await site?.close();
});

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; reason?: string }> {
  try {
    await p;
  } catch (err) {
    return err as never;
  }
  assert.fail("expected an error");
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(100);
  }
  return check();
}

describe("web.browse in Chromium", { skip }, () => {
  test("a page that needs JavaScript is rendered in the browser and extracted", async () => {
    const r = await s.call("web.browse", { url: `${site.base}/scripted` });
    assert.equal(r.renderer, "browser");
    assert.equal(r.status, 200);
    assert.equal(r.title, "Rendered by script");
    assert.match(r.content, /only after JavaScript ran in a real browser/);
    assert.match(r.content, /offshore parks/);
    assert.equal(r.resolvedIp, "127.0.0.1");
  });

  test("the browser's traffic is guarded: a page's requests to a non-public address never arrive", async () => {
    // A server on this machine's non-loopback address (here a reserved or private one, which the
    // guard refuses even with the loopback escape hatch): reachable, so only the guard stops the page.
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4" && addressRange(a.address) !== "unicast")?.address;
    if (!address) return void test.skip?.("no non-public interface address on this machine");
    const hits: string[] = [];
    const target = http.createServer((req, res) => {
      hits.push(req.url ?? "");
      res.end("secret");
    });
    target.on("connect", (req, socket) => {
      hits.push(`CONNECT ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((r) => target.listen(0, "0.0.0.0", r));
    const port = (target.address() as AddressInfo).port;
    try {
      const origin = `http://${address}:${port}`;
      const r = await s.call("web.browse", {
        url: `${site.base}/leaks?target=${encodeURIComponent(origin)}`,
        waitUntil: "networkidle",
      });
      assert.equal(r.renderer, "browser"); // little text and a script: rendered
      assert.equal(r.title, "blocked");
      assert.deepEqual(hits, []);
    } finally {
      target.closeAllConnections();
      target.close();
    }
  });

  test("in the browser, a redirect to a private address is refused by the proxy (http and https hops)", async () => {
    for (const path of ["/to-private", "/to-private-https"]) {
      const e = await failure(s.call("web.browse", { url: `${site.base}${path}`, renderer: "browser" }));
      assert.equal(e.code, "upstream_failed", `${path}: ${e.message}`);
      assert.equal(e.reason, "redirect_refused", `${path}: ${e.message}`);
      assert.match(e.message, /10\.0\.0\.1/);
    }
  });

  test("screenshot: the viewport as a PNG behind a signed link; the page is rendered for it", async () => {
    const r = await s.call(
      "web.browse",
      { url: `${site.base}/article`, screenshot: true },
      { baseUrl: "http://gw.test" },
    );
    assert.equal(r.renderer, "browser");
    assert.deepEqual([r.screenshot.width, r.screenshot.height], [1366, 768]);
    assert.match(r.screenshot.url, /^http:\/\/gw\.test\/v1\/files\/web\/screenshots\/art_/);
    assert.ok(Date.parse(r.screenshot.expires) > Date.now());
    const file = await getFile(s, r.screenshot.url);
    assert.equal(file.status, 200);
    assert.equal(sha256(file.body), r.screenshot.sha256);
    const plain = await s.call("web.browse", { url: `${site.base}/article` });
    assert.equal(plain.screenshot, null);
  });

  test("screenshot: kept in the blob store; an expired one's bytes and row go at the tenant's next screenshot", async () => {
    const shot = () =>
      s.call(
        "web.browse",
        { url: `${site.base}/article`, screenshot: true },
        { tenant: "shots-co", baseUrl: "http://gw.test" },
      );
    const first = await shot();
    const stored = async (id: string) =>
      (
        await s.db.query(
          `SELECT (SELECT count(*)::int FROM web.screenshots WHERE id = $1) AS rows,
                  (SELECT count(*)::int FROM web.blobs WHERE tenant = 'shots-co' AND key = 'screenshots/' || $1 || '.png') AS blobs`,
          [id],
        )
      ).rows[0];
    assert.deepEqual(await stored(first.screenshot.id), { rows: 1, blobs: 1 });
    await s.db.query(`UPDATE web.screenshots SET expires_at = now() - interval '1 minute' WHERE id = $1`, [
      first.screenshot.id,
    ]);
    const second = await shot();
    assert.deepEqual(await stored(first.screenshot.id), { rows: 0, blobs: 0 });
    assert.deepEqual(await stored(second.screenshot.id), { rows: 1, blobs: 1 });
    assert.equal((await getFile(s, second.screenshot.url)).status, 200);
  });

  test("renderer: `browser` renders a page HTTP alone would do; `http` keeps the HTTP extraction of a script page", async () => {
    const r = await s.call("web.browse", { url: `${site.base}/article`, renderer: "browser", viewport: "mobile" });
    assert.equal(r.renderer, "browser");
    assert.equal(r.title, "Solar panels in 2026");
    assert.match(r.content, /8\.1 cents per kilowatt hour/);
    const h = await s.call("web.browse", { url: `${site.base}/scripted`, renderer: "http" });
    assert.equal(h.renderer, "http");
    assert.doesNotMatch(h.content, /only after JavaScript ran/);
  });

  test("the concurrency cap: at most WEB_BROWSER_CONCURRENCY pages at once; a page waiting for a slot has the same deadline", async () => {
    let peak = 0;
    const poll = setInterval(() => {
      peak = Math.max(peak, s.ctx.browser.active);
    }, 20);
    try {
      const results = await Promise.allSettled(
        [1, 2, 3].map((i) => s.call("web.browse", { url: `${site.base}/scripted-hang?n=${i}`, timeoutMs: 1500 })),
      );
      assert.deepEqual(
        results.map((r) => r.status === "rejected" && (r.reason as { code: string }).code),
        ["timeout", "timeout", "timeout"],
      );
    } finally {
      clearInterval(poll);
    }
    assert.equal(peak, 2);
    assert.equal(s.ctx.browser.active, 0);
  });

  test("a page killed mid-load at its deadline: 504 naming the render stage, its renderer ends, no orphans after close", async () => {
    const base = chromiumDescendants().filter((p) => p.type === "renderer").length;
    const started = Date.now();
    const killed = await failure(s.call("web.browse", { url: `${site.base}/scripted-hang`, timeoutMs: 3000 }));
    assert.equal(killed.code, "timeout");
    assert.match(killed.message, /stage: render/);
    assert.ok(Date.now() - started < 15_000);
    assert.ok(
      await until(() => chromiumDescendants().filter((p) => p.type === "renderer").length <= base, 5000),
      `renderers left: ${JSON.stringify(chromiumDescendants())}`,
    );
    assert.equal(s.ctx.browser.active, 0);
    await s.ctx.browser.close();
    assert.ok(await until(() => chromiumDescendants().length === 0, 5000), JSON.stringify(chromiumDescendants()));
  });
});

describe("an idle browser", { skip }, () => {
  let idle: ServiceHarness<Context>;
  before(async () => {
    if (skip) return;
    idle = await startWeb({ WEB_BROWSER_IDLE_MS: "300" });
  });
  after(async () => {
    await idle?.stop();
  });

  test("is ended once no page has been open for WEB_BROWSER_IDLE_MS, and the next page starts one again", async () => {
    const first = await idle.call("web.browse", { url: `${site.base}/scripted` });
    assert.equal(first.renderer, "browser");
    assert.ok(await until(() => chromiumDescendants().length === 0, 10_000), JSON.stringify(chromiumDescendants()));
    const again = await idle.call("web.browse", { url: `${site.base}/scripted` });
    assert.equal(again.renderer, "browser");
    assert.equal(again.title, "Rendered by script");
  });
});
