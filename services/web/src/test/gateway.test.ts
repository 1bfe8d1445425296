/**
 * The web service through the whole stack (gateway + keys + web as separate processes, real API
 * keys, results checked against the catalogue by the gateway): every ability of the area answers
 * (none 501); a refused URL is a 400 naming the rule in the spec's error envelope; a screenshot link
 * is served by the gateway without an API key and refused once tampered with.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { type SearchEngine, type Site, startSearxng, startSite } from "./sites.ts";

const CHROMIUM = process.env.WEB_CHROMIUM_PATH ?? "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (set WEB_CHROMIUM_PATH)`;

let t: TestStack;
let site: Site;
let engine: SearchEngine;
let key: string;
before(async () => {
  if (skip) return;
  site = await startSite();
  engine = await startSearxng(() => [{ url: `${site.base}/article`, title: "Solar" }]);
  t = await startTestStack({
    services: ["keys", "web"],
    healthTimeoutMs: 120_000,
    env: { WEB_ALLOW_LOOPBACK: "true", WEB_SEARXNG_URL: engine.base, WEB_CHROMIUM_PATH: CHROMIUM, LOG_LEVEL: "error" },
  });
  key = (await t.insertKey({ tenant: "acme", name: "web" })).key;
});
after(async () => {
  await t?.stop();
  await site?.close();
  await engine?.close();
});

test("every web ability answers through the gateway; errors use the envelope; screenshot links work without a key", {
  skip,
}, async () => {
  const browse = await t.call("web.browse", { input: { url: `${site.base}/article`, screenshot: true } }, key);
  assert.equal(browse.status, 200, JSON.stringify(browse.body));
  const shot = browse.body.result.screenshot;
  assert.ok(shot.url.startsWith(`${t.url}/v1/files/web/screenshots/`), shot.url);

  const file = await fetch(shot.url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("content-type"), "image/png");
  assert.equal(Buffer.from(await file.arrayBuffer()).length, shot.bytes);
  const tampered = await fetch(shot.url.replace(/sig=[0-9a-f]/, (m: string) => (m.endsWith("0") ? "sig=1" : "sig=0")));
  assert.equal(tampered.status, 403);

  const research = await t.call("web.research", { input: { query: "solar panels pay back" } }, key);
  assert.equal(research.status, 200, JSON.stringify(research.body));
  assert.ok(research.body.result.findings.length > 0);
  const verify = await t.call("research.verify", { input: { query: "feed-in tariff" } }, key);
  assert.equal(verify.status, 200, JSON.stringify(verify.body));
  const check = await t.call("qa.browser_check", { input: { url: `${site.base}/clean`, screenshot: false } }, key);
  assert.equal(check.status, 200, JSON.stringify(check.body));
  assert.equal(check.body.result.passed, true);

  const refused = await t.call("web.browse", { input: { url: "http://169.254.169.254/latest/meta-data/" } }, key);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, "validation_failed");
  assert.deepEqual(
    refused.body.details.map((d: { path: string; code: string; rule: string }) => [d.path, d.code, d.rule]),
    [["/input/url", "url_refused", "address"]],
  );
});
