/**
 * The page reader's worker: it reads a document into the same content the service returns, is
 * ended once no page has been read for WEB_READER_IDLE_MS (its libraries leave with it), and the
 * next page starts it again with the same result; pages read at once go to workers side by side; the
 * two DOMs (WEB_DOM) give the same content.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { pageReader } from "./reader.ts";

const ARTICLE = `<!doctype html><html lang="en"><head><title>Tax deadlines 2026</title>
<meta name="author" content="Revenue Office"></head><body><nav><a href="/home">Home</a></nav>
<article><h1>Tax deadlines 2026</h1><p>Returns are due on <b>30 June 2026</b> for every small business
registered before January.</p><p>Late returns pay a penalty of 5% per month; see <a href="/penalties#late">penalties</a>.</p>
<p>Payments can be made online, at a bank, or by transfer to the revenue office's account.</p></article>
<script>document.title = "changed";</script></body></html>`;

test("reads a page in its worker, ends when idle and reads the next page the same way", async () => {
  const reader = pageReader(150);
  try {
    const first = await reader.call({ html: ARTICLE, url: "https://tax.example/deadlines" });
    assert.equal(first.title, "Tax deadlines 2026", "scripts never run");
    assert.equal(first.lang, "en");
    assert.match(first.markdown, /Returns are due on \*\*30 June 2026\*\*/);
    assert.match(first.text, /^Returns are due on 30 June 2026 for every small business registered before January\.$/m);
    assert.deepEqual(first.links, [{ url: "https://tax.example/penalties", text: "penalties" }]);
    assert.equal(first.hasScripts, true);
    assert.equal(reader.running, 1);
    await eventually(async () => reader.running === 0);
    assert.equal(reader.running, 0, "the worker was ended after WEB_READER_IDLE_MS without a page");
    assert.deepEqual(await reader.call({ html: ARTICLE, url: "https://tax.example/deadlines" }), first);
  } finally {
    await reader.close();
  }
});

test("pages read at once go to the workers side by side; one page at a time keeps to the first", async () => {
  const reader = pageReader(60_000, { workers: 2 });
  try {
    const page = { html: ARTICLE, url: "https://tax.example/deadlines" };
    const one = await reader.call(page);
    await reader.call(page);
    assert.equal(reader.running, 1, "pages one after another are read by the first worker only");
    const both = await Promise.all([reader.call(page), reader.call(page), reader.call(page), reader.call(page)]);
    assert.equal(reader.running, 2, "pages in flight together started the second worker");
    for (const r of both) assert.deepEqual(r, one);
  } finally {
    await reader.close();
  }
  assert.equal(reader.running, 0);
});

test("linkedom and jsdom read a page into the same text, Markdown, links and metadata", async () => {
  const html = ARTICLE.replace(
    "</article>",
    `<h2>Who pays &gt; what</h2><ul><li>Shops &amp; cafés: <a href="rates.html">rates</a></li><li>2. Offices</li></ul>
<table><tr><td>Q1</td><td>31 March</td></tr></table><p>See <a href="#top">top</a> or <a href="mailto:tax@example">mail</a>.</p></article>`,
  );
  const linkedom = pageReader(0, { dom: "linkedom" });
  const jsdom = pageReader(0, { dom: "jsdom" });
  try {
    const url = "https://tax.example/guide/deadlines";
    const [a, b] = await Promise.all([linkedom.call({ html, url }), jsdom.call({ html, url })]);
    const { html: aHtml, ...aRest } = a;
    const { html: bHtml, ...bRest } = b;
    assert.deepEqual(aRest, bRest);
    assert.match(a.markdown, /## Who pays > what/);
    assert.match(a.text, /^Shops & cafés: rates$/m);
    assert.deepEqual(
      a.links.map((l) => l.url),
      ["https://tax.example/penalties", "https://tax.example/guide/rates.html", "https://tax.example/guide/deadlines"],
    );
    // The HTML is the same tree; the two serialisers differ only in attribute order and character references.
    assert.match(aHtml, /<a href="https:\/\/tax\.example\/guide\/rates\.html">rates<\/a>/);
    assert.match(bHtml, /<a href="https:\/\/tax\.example\/guide\/rates\.html">rates<\/a>/);
  } finally {
    await Promise.all([linkedom.close(), jsdom.close()]);
  }
});
