/**
 * web.research and research.verify (search variant) over a local search engine speaking SearXNG's
 * JSON API whose results are pages of a local site: the query and filters reach the engine, the
 * results are read through the guard, passages are ranked, and every citation is a verbatim quote
 * whose offsets and hash can be checked against the page's extracted text (web.browse, format text).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { startService, type ServiceHarness } from "../../../../infra/testing/service.ts";
import type { Context } from "../context.ts";
import { type SearchEngine, type Site, startSearxng, startSite } from "../test/sites.ts";

let s: ServiceHarness<Context>;
let bare: ServiceHarness<Context>;
let site: Site;
let engine: SearchEngine;
before(async () => {
  site = await startSite();
  engine = await startSearxng((q) => {
    const all = [
      {
        url: `${site.base}/article`,
        title: "Solar panels in 2026 (search title)",
        publishedDate: "2026-03-01T09:00:00",
      },
      { url: `${site.base}/heat-pumps`, title: "Heat pumps explained", content: "A heat pump moves heat…" },
      { url: `${site.base}/private/page`, title: "Disallowed by robots.txt" },
      { url: "http://10.0.0.1/intranet", title: "A private address" },
      { url: `${site.base}/image.png`, title: "Not text" },
    ];
    return q.get("q")?.includes("nothing") ? [] : all;
  });
  s = await startService<Context>("web", {
    WEB_ALLOW_LOOPBACK: "true",
    WEB_SEARXNG_URL: engine.base,
    LOG_LEVEL: "fatal",
  });
});
after(async () => {
  await s?.stop();
  await bare?.stop();
  await site?.close();
  await engine?.close();
});

async function pageText(url: string): Promise<string> {
  const r = await s.call("web.browse", { url, format: "text", maxChars: 200_000 });
  return r.content;
}

describe("web.research", () => {
  test("findings quote the sources verbatim, with offsets and hashes that check out; unreadable sources say why", async () => {
    const r = await s.call("web.research", { query: "How long until rooftop solar panels pay back?", maxSources: 5 });
    assert.equal(r.searchProvider, "searxng");
    assert.equal(engine.queries.at(-1)?.get("q"), "How long until rooftop solar panels pay back?");
    assert.equal(engine.queries.at(-1)?.get("format"), "json");
    assert.ok(r.findings.length > 0);
    const top = r.findings[0];
    assert.match(top.text, /pays back its price in seven to nine years/);
    for (const f of r.findings) {
      const c = f.citations[0];
      assert.equal(c.quote, f.text);
      const text = await pageText(c.url);
      assert.equal(text.slice(c.start, c.end), c.quote);
      assert.equal(c.contentSha256, createHash("sha256").update(text).digest("hex"));
      assert.ok(f.score > 0 && f.score <= 1);
    }
    assert.deepEqual(
      r.findings.map((f: { score: number }) => f.score),
      [...r.findings.map((f: { score: number }) => f.score)].sort((a, b) => b - a),
    );
    const byUrl = Object.fromEntries(r.sources.map((x: { url: string }) => [x.url, x]));
    assert.equal(r.sources.length, 5);
    assert.equal(byUrl[`${site.base}/article`].cited, true);
    assert.equal(byUrl[`${site.base}/article`].title, "Solar panels in 2026");
    assert.equal(byUrl[`${site.base}/article`].status, 200);
    assert.match(byUrl[`${site.base}/private/page`].error, /robots\.txt disallows/);
    assert.equal(byUrl[`${site.base}/private/page`].contentSha256, null);
    assert.match(byUrl["http://10.0.0.1/intranet"].error, /SSRF guard \(address\)/);
    assert.match(byUrl[`${site.base}/image.png`].error, /not a text or HTML page/);
    assert.equal(byUrl[`${site.base}/heat-pumps`].error, null);
  });

  test("filters: maxSources, domains, recency and locale reach the engine and the results", async () => {
    const r = await s.call("web.research", {
      query: "heat pump coefficient of performance",
      maxSources: 1,
      recencyDays: 30,
      locale: "en-GB",
      excludeDomains: ["example.org"],
    });
    const q = engine.queries.at(-1);
    assert.equal(q?.get("time_range"), "month");
    assert.equal(q?.get("language"), "en-GB");
    assert.equal(r.sources.length, 1);
    const only = await s.call("web.research", { query: "solar", includeDomains: ["example.org"] });
    assert.equal(engine.queries.at(-1)?.get("q"), "solar site:example.org");
    assert.deepEqual(only.sources, []); // the engine's results are all on 127.0.0.1
    assert.deepEqual(only.findings, []);
  });

  test("no results: no findings, no sources (not an error)", async () => {
    const r = await s.call("web.research", { query: "nothing matches this" });
    assert.deepEqual([r.findings, r.sources], [[], []]);
  });
});

describe("research.verify (search)", () => {
  test("dated observations with quotes, offsets, hashes and fetch times; never a verdict", async () => {
    const r = await s.call("research.verify", { query: "Germany feed-in tariff cents per kilowatt hour" });
    assert.equal(r.action, "search");
    assert.ok(r.observations.length > 0);
    const o = r.observations[0];
    assert.match(o.quote, /8\.1 cents per kilowatt hour/);
    assert.equal(o.published, "2026-03-01T09:00:00Z");
    assert.ok(o.relevance > 0 && o.relevance <= 1);
    const text = await pageText(o.url);
    assert.equal(text.slice(o.start, o.end), o.quote);
    assert.equal(o.contentSha256, createHash("sha256").update(text).digest("hex"));
    assert.ok(!("verdict" in r) && !("true" in r));
  });
});

describe("without a search provider", () => {
  test("web.research and research.verify answer 501 naming the missing setting", async () => {
    bare = await startService<Context>("web", { LOG_LEVEL: "fatal" });
    for (const id of ["web.research", "research.verify"] as const) {
      await assert.rejects(bare.call(id, { query: "anything" }), (e: { code: string; message: string }) => {
        assert.equal(e.code, "not_implemented");
        assert.match(e.message, /WEB_SEARXNG_URL/);
        return true;
      });
    }
  });
});
