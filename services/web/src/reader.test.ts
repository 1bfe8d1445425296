/**
 * The page reader's worker: it reads a document into the same content the service returns, is
 * ended once no page has been read for WEB_READER_IDLE_MS (its libraries leave with it), and the
 * next page starts it again with the same result.
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
    assert.equal(reader.running, true);
    await eventually(async () => !reader.running);
    assert.equal(reader.running, false, "the worker was ended after WEB_READER_IDLE_MS without a page");
    assert.deepEqual(await reader.call({ html: ARTICLE, url: "https://tax.example/deadlines" }), first);
  } finally {
    await reader.close();
  }
});
