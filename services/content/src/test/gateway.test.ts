/**
 * Guide Center through the whole stack (gateway + keys + content as separate processes, a real API
 * key with a product allow-list, results checked against the catalogue by the gateway): a guide
 * using every construct of the grammar is published, its help-centre page is read back over HTTP
 * from the gateway without a key, guide.list finds it in the product's manifest, and a broken
 * construct is a 400 naming the line and the fix, with nothing published.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
let key: string;
before(async () => {
  t = await startTestStack({
    services: ["keys", "content"],
    healthTimeoutMs: 120_000,
    env: { LOG_LEVEL: "error" },
  });
  key = (await t.insertKey({ tenant: "guide-co", name: "writer", products: ["clinic-desk"] })).key;
});
after(async () => t?.stop());

const guide = {
  product: "clinic-desk",
  slug: "connect-payments",
  title: "Connect your payment account",
  area: "Billing",
  markdown: [
    "Take card payments in a few minutes.",
    "",
    "::: slip What you need",
    "- Your bank details",
    "- The [[Owner]] role",
    ":::",
    "",
    "Step: Open [[Settings]] → [[Payments]]",
    "The page lists your payment accounts.",
    "",
    "Step: Click [[Connect]]",
    "!tip Use a business account, not a personal one.",
    "!warning Do not share the <b>code</b> you receive.",
  ].join("\n"),
};

test("a guide with steps, labels, callouts and a slip is served as the help-centre page and listed from the manifest", async () => {
  const res = await t.call("guide.publish", { input: guide }, key);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { url, helpCenterUrl } = res.body.result;
  assert.ok(url.startsWith(`${t.url}/v1/files/content/help/guide-co/clinic-desk/`), url);

  const page = await fetch(url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(
    html,
    /<aside class="gc-slip">\n<p class="gc-slip-title">What you need<\/p>\n<ul>\n<li>Your bank details<\/li>\n<li>The <span class="gc-label">Owner<\/span> role<\/li>/,
  );
  assert.match(
    html,
    /<ol class="gc-steps">\n<li class="gc-step" id="step-1">\n<p class="gc-step-title">Open <span class="gc-label">Settings<\/span> → <span class="gc-label">Payments<\/span><\/p>\n<p>The page lists your payment accounts.<\/p>/,
  );
  assert.match(
    html,
    /<li class="gc-step" id="step-2">\n<p class="gc-step-title">Click <span class="gc-label">Connect<\/span><\/p>\n<p class="gc-callout gc-callout-tip" role="note"><strong class="gc-callout-kind">Tip:<\/strong> Use a business account, not a personal one.<\/p>/,
  );
  assert.match(html, /gc-callout-warning[^\n]*Do not share the &lt;b&gt;code&lt;\/b&gt; you receive\./);
  assert.ok(!html.includes("<b>"), "markup in a callout stays text");

  const listed = await t.call("guide.list", { input: { product: "clinic-desk" } }, key);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.equal(listed.body.result.helpCenterUrl, helpCenterUrl);
  assert.deepEqual(
    listed.body.result.guides.map((g: any) => [g.slug, g.title, g.area, g.url]),
    [["connect-payments", guide.title, "Billing", url]],
  );
  const manifest = await (await fetch(`${helpCenterUrl}manifest.json`)).json();
  assert.deepEqual(
    manifest.guides.map((g: any) => g.url),
    [url],
  );
});

test("a broken construct is a 400 naming the line and the fix; nothing is written", async () => {
  const res = await t.call(
    "guide.publish",
    {
      input: {
        ...guide,
        slug: "broken",
        markdown: "Intro.\n\nStep: Open [[Settings]]\n!danger Hot surface\n::: slip Keep\nnever closed",
      },
    },
    key,
  );
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.ok, false);
  assert.match(res.body.error, /line 4: unknown callout kind "danger"\. Start a callout line with one of !note, !tip/);
  assert.deepEqual(
    res.body.details.map((d: any) => [d.path, d.code, d.line]),
    [
      ["/input/markdown", "invalid_value", 4],
      ["/input/markdown", "invalid_value", 5],
    ],
  );
  assert.match(
    res.body.details[1].message,
    /^line 5: the slip block opened on this line is never closed\. Add a line ":::"/,
  );
  assert.equal(res.body.details[1].fix, 'Add a line ":::" where the slip ends.');

  const listed = await t.call("guide.list", { input: { product: "clinic-desk" } }, key);
  assert.deepEqual(
    listed.body.result.guides.map((g: any) => g.slug),
    ["connect-payments"],
  );
  const { rows } = await t.db.query("SELECT slug FROM content.guides WHERE tenant = 'guide-co' ORDER BY slug");
  assert.deepEqual(
    rows.map((r) => r.slug),
    ["connect-payments"],
  );
});
