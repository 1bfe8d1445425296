/**
 * web.browse over HTTP and in Chromium, against local servers: clean Markdown/text/HTML with
 * metadata, redirect hops with their statuses, the address connected to, robots.txt honoured, the
 * SSRF guard refusing private targets (also behind a redirect, and from inside the browser), size and
 * time caps, and clear errors naming the rule or the stage.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { startService, type ServiceHarness } from "../../../../infra/testing/service.ts";
import type { Context } from "../context.ts";
import { type Site, startSite } from "../test/sites.ts";

let s: ServiceHarness<Context>;
let site: Site;
before(async () => {
  site = await startSite();
  s = await startService<Context>("web", {
    WEB_ALLOW_LOOPBACK: "true",
    WEB_MAX_BYTES: "131072",
    // The escape hatch warns on every request; the tests assert on results, not on that log.
    LOG_LEVEL: "fatal",
  });
});
after(async () => {
  await s?.stop();
  await site?.close();
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

async function failure(
  p: Promise<unknown>,
): Promise<{ code: string; message: string; reason?: string; details?: any[] }> {
  try {
    await p;
  } catch (err) {
    return err as never;
  }
  assert.fail("expected an error");
}

describe("web.browse over HTTP", () => {
  test("an article as Markdown: main content only, metadata, links, hash of what is returned", async () => {
    const r = await s.call("web.browse", { url: `${site.base}/article` });
    assert.equal(r.renderer, "http");
    assert.equal(r.status, 200);
    assert.equal(r.finalUrl, `${site.base}/article`);
    assert.equal(r.resolvedIp, "127.0.0.1");
    assert.equal(r.format, "markdown");
    assert.equal(r.title, "Solar panels in 2026");
    assert.equal(r.byline, "Ada Lovelace");
    assert.equal(r.lang, "en");
    assert.equal(r.published, "2026-03-01T09:00:00Z");
    assert.match(r.content, /^## Maintenance$/m);
    assert.match(r.content, /8\.1 cents per kilowatt hour/);
    assert.match(r.content, /\[tariff table\]\(http:\/\/127\.0\.0\.1:\d+\/tariffs\)/);
    assert.doesNotMatch(r.content, /Privacy|window\.analytics/); // footer and scripts are boilerplate
    assert.deepEqual(
      r.links.map((l: { url: string }) => l.url),
      [`${site.base}/tariffs`, "https://example.org/report"],
    );
    assert.equal(r.truncated, false);
    assert.equal(r.contentChars, r.content.length);
    assert.equal(r.sha256, createHash("sha256").update(r.content).digest("hex"));
    assert.deepEqual(r.redirects, []);
    assert.ok(Date.parse(r.fetched) <= Date.now());
  });

  test("text and HTML formats; maxChars cuts and says so", async () => {
    const text = await s.call("web.browse", { url: `${site.base}/article`, format: "text", maxChars: 1000 });
    assert.equal(text.format, "text");
    assert.ok(text.contentChars > 1000);
    assert.equal(text.content.length, 1000);
    assert.equal(text.truncated, true);
    // One line per block: paragraphs and headings each on their own line.
    assert.match(text.content, /\nMaintenance\nPanels need little maintenance/);
    assert.doesNotMatch(text.content, /[<>]/);
    const html = await s.call("web.browse", { url: `${site.base}/article`, format: "html" });
    assert.match(html.content, /<h2>Maintenance<\/h2>/);
    assert.doesNotMatch(html.content, /<script/);
  });

  test("redirects: every hop with its status, final URL after them", async () => {
    const r = await s.call("web.browse", { url: `${site.base}/r1` });
    assert.deepEqual(r.redirects, [
      { url: `${site.base}/r1`, status: 301 },
      { url: `${site.base}/r2`, status: 302 },
    ]);
    assert.equal(r.finalUrl, `${site.base}/article`);
    assert.equal(r.url, `${site.base}/r1`);
  });

  test("plain text pages are returned as they are; binary content is refused with a clear error", async () => {
    const r = await s.call("web.browse", { url: `${site.base}/notes.txt` });
    assert.equal(r.content, "Plain notes.\nSecond line.");
    assert.equal(r.contentType, "text/plain; charset=utf-8");
    const e = await failure(s.call("web.browse", { url: `${site.base}/image.png` }));
    assert.equal(e.code, "upstream_failed");
    assert.match(e.message, /image\/png, not a text or HTML page/);
  });

  test("a page over the size cap is cut at the cap and flagged", async () => {
    const r = await s.call("web.browse", { url: `${site.base}/big`, format: "text", maxChars: 200_000 });
    assert.equal(r.truncated, true);
    assert.ok(r.contentChars < 131_072, `${r.contentChars}`);
  });

  test("robots.txt is honoured: a disallowed path is refused naming robots.txt, and not fetched", async () => {
    const before = site.hits.length;
    const e = await failure(s.call("web.browse", { url: `${site.base}/private/page` }));
    assert.equal(e.code, "forbidden");
    assert.equal(e.reason, "robots_disallowed");
    assert.match(e.message, /robots\.txt disallows \/private\/page/);
    assert.ok(!site.hits.slice(before).includes("GET /private/page"));
  });

  test("the SSRF guard: private, metadata and mapped addresses refused with the rule; also behind a redirect", async () => {
    for (const url of ["http://10.0.0.1/", "http://[::ffff:169.254.169.254]/", "http://0x7f.1:9/", "http://0.0.0.0/"]) {
      const e = await failure(s.call("web.browse", { url }));
      if (url.startsWith("http://0x7f")) continue; // loopback is the test escape hatch; only the others must fail
      assert.equal(e.code, "validation_failed", url);
      assert.equal(e.details?.[0]?.code, "url_refused", url);
      assert.equal(e.details?.[0]?.path, "/input/url");
      assert.equal(e.details?.[0]?.rule, "address");
    }
    const scheme = await failure(s.call("web.browse", { url: "ftp://example.org/file" }));
    assert.equal(scheme.code, "validation_failed");
    const hop = await failure(s.call("web.browse", { url: `${site.base}/to-private` }));
    assert.equal(hop.code, "upstream_failed");
    assert.equal(hop.reason, "redirect_refused");
    assert.match(hop.message, /redirected to http:\/\/10\.0\.0\.1\/admin, which is refused/);
    const meta = await failure(s.call("web.browse", { url: `${site.base}/to-metadata` }));
    assert.equal(meta.reason, "redirect_refused");
  });

  test("more than five redirects, an unknown host, a closed port and a timeout: clear errors with the stage", async () => {
    const loop = await failure(s.call("web.browse", { url: `${site.base}/loop` }));
    assert.equal(loop.code, "upstream_failed");
    assert.match(loop.message, /more than 5 redirects/);

    const unknown = await failure(s.call("web.browse", { url: "http://no-such-host.invalid/" }));
    assert.equal(unknown.code, "validation_failed");
    assert.equal(unknown.details?.[0]?.code, "host_not_found");

    const closed = await failure(s.call("web.browse", { url: `http://127.0.0.1:${await closedPort()}/` }));
    assert.equal(closed.code, "upstream_failed");
    assert.match(closed.message, /stage: (robots|connect)/);

    const started = Date.now();
    const slow = await failure(s.call("web.browse", { url: `${site.base}/hang`, timeoutMs: 1000 }));
    assert.equal(slow.code, "timeout");
    assert.match(slow.message, /stage: body/);
    assert.ok(Date.now() - started < 5000);
  });
});
