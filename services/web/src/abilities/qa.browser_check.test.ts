/**
 * qa.browser_check in the real Chromium against a local site: every check type with its evidence
 * (status, visible text, selector visibility, console errors and uncaught exceptions with their
 * source, axe-core violations by impact with "needs review" kept, broken links), the defaults,
 * timings, full-page screenshots behind signed links, and errors for refused URLs, invalid selectors and pages that never load.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startService, type ServiceHarness } from "../../../../infra/testing/service.ts";
import type { Context } from "../context.ts";
import { getFile, sha256 } from "../test/files.ts";
import { type Site, startSite } from "../test/sites.ts";

const CHROMIUM = process.env.WEB_CHROMIUM_PATH ?? "/usr/bin/chromium";
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (set WEB_CHROMIUM_PATH)`;

let s: ServiceHarness<Context>;
let site: Site;
before(async () => {
  if (skip) return;
  site = await startSite();
  s = await startService<Context>("web", {
    WEB_ALLOW_LOOPBACK: "true",
    WEB_CHROMIUM_PATH: CHROMIUM,
    LOG_LEVEL: "fatal",
  });
});
after(async () => {
  await s?.stop();
  await site?.close();
});

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

describe("qa.browser_check", { skip }, () => {
  test("status, text, selector and console checks with their evidence; timings", async () => {
    const r = await s.call("qa.browser_check", {
      url: `${site.base}/checked`,
      viewport: "mobile",
      checks: [
        { type: "status", expect: 200 },
        { type: "text", text: "Book  an\nappointment" },
        { type: "text", text: "Hidden text here", present: false },
        { type: "selector", selector: "form#booking button[type=submit]" },
        { type: "selector", selector: "p[style]" },
        { type: "selector", selector: ".nope", present: false },
        { type: "no_console_errors" },
        { type: "status", expect: 404 },
      ],
    });
    assert.equal(r.status, 200);
    assert.equal(r.viewport, "mobile");
    assert.equal(r.finalUrl, `${site.base}/checked`);
    const [status, text, hidden, selector, invisible, absent, console_, wrong] = r.checks;
    assert.deepEqual(status, { index: 0, type: "status", passed: true, expected: 200, actual: 200 });
    assert.equal(text.passed, true);
    assert.equal(text.found, 1);
    assert.deepEqual(hidden, {
      index: 2,
      type: "text",
      passed: true,
      text: "Hidden text here",
      present: false,
      found: 0,
    });
    assert.deepEqual([selector.passed, selector.matched, selector.visible], [true, 1, 1]);
    assert.deepEqual([invisible.passed, invisible.matched, invisible.visible], [false, 1, 0]);
    assert.equal(absent.passed, true);
    assert.equal(console_.passed, false);
    const kinds = console_.errors.map((e: { kind: string; message: string }) => `${e.kind}: ${e.message}`);
    assert.ok(kinds.includes("console: boom from the page"), kinds.join(" | "));
    assert.ok(
      kinds.some((k: string) => k.startsWith("exception: late failure")),
      kinds.join(" | "),
    );
    // The 404 of the missing image is logged by Chromium as a console error too, with its URL.
    assert.ok(console_.errors.some((e: { source: string | null }) => e.source?.endsWith("/pixel.png")));
    assert.equal(wrong.passed, false);
    assert.equal(r.passed, false);
    assert.ok(r.timings.loadMs >= r.timings.domContentLoadedMs && r.timings.domContentLoadedMs > 0);
    // Full-page PNG by default, behind a signed link the gateway serves without a key.
    assert.equal(r.screenshot.contentType, "image/png");
    assert.equal(r.screenshot.width, 390 * 2); // mobile viewport at device scale 2
    const file = await getFile(s, r.screenshot.url);
    assert.equal(file.status, 200);
    assert.equal(file.type, "image/png");
    assert.equal(file.body.subarray(1, 4).toString(), "PNG");
    assert.equal(file.body.length, r.screenshot.bytes);
    assert.equal(sha256(file.body), r.screenshot.sha256);
  });

  test("screenshot links: a changed signature or expiry is refused; screenshot false gives none", async () => {
    const r = await s.call("qa.browser_check", { url: `${site.base}/clean` }, { baseUrl: "https://api.example.test" });
    const link = new URL(r.screenshot.url);
    assert.equal(link.origin, "https://api.example.test");
    assert.match(link.pathname, /^\/v1\/files\/web\/screenshots\/art_[A-Za-z0-9]+\.png$/);
    const tampered = new URL(link);
    tampered.searchParams.set("expires", String(Number(link.searchParams.get("expires")) + 1000));
    assert.equal((await getFile(s, tampered.href)).status, 403);
    const other = new URL(link);
    other.pathname = other.pathname.replace(/art_\w+/, "art_01AAAAAAAAAAAAAAAAAAAAAAAA");
    assert.equal((await getFile(s, other.href)).status, 403);
    // A correctly signed link whose time has passed: 410.
    const id = /art_\w+/.exec(link.pathname)?.[0] ?? "";
    const past = Date.now() - 1000;
    const expired = new URL(link);
    expired.search = `?expires=${past}&sig=${s.ctx.signer.sign(id, past)}`;
    assert.equal((await getFile(s, expired.href)).status, 410);
    const none = await s.call("qa.browser_check", { url: `${site.base}/clean`, screenshot: false });
    assert.equal(none.screenshot, null);
  });

  test("defaults: status 200 and a clean console", async () => {
    const r = await s.call("qa.browser_check", { url: `${site.base}/clean` });
    assert.equal(r.passed, true);
    assert.deepEqual(
      r.checks.map((c: { type: string; passed: boolean }) => [c.type, c.passed]),
      [
        ["status", true],
        ["no_console_errors", true],
      ],
    );
    assert.equal(typeof r.timings.lcpMs, "number"); // the heading is the largest paint
  });

  test("accessibility with axe-core: violations by impact, needs-review kept, minImpact decides", async () => {
    const r = await s.call("qa.browser_check", {
      url: `${site.base}/checked`,
      checks: [
        { type: "accessibility" },
        { type: "accessibility", minImpact: "critical" },
        { type: "accessibility", minImpact: "minor" },
      ],
    });
    const [serious, critical, minor] = r.checks;
    const ids = serious.violations.map((v: { id: string }) => v.id);
    assert.ok(ids.includes("image-alt"), ids.join(","));
    assert.ok(ids.includes("html-has-lang"), ids.join(","));
    const alt = serious.violations.find((v: { id: string }) => v.id === "image-alt");
    assert.equal(alt.impact, "critical");
    assert.deepEqual(alt.targets, ["img"]);
    assert.match(alt.helpUrl, /^https:\/\/dequeuniversity\.com\//);
    assert.ok(alt.tags.includes("wcag2a"));
    assert.equal(serious.passed, false);
    assert.equal(critical.passed, false); // image-alt is critical
    assert.equal(minor.passed, false);
    assert.ok(Array.isArray(serious.needsReview));
    assert.match(serious.engine, /^4\./);

    const clean = await s.call("qa.browser_check", {
      url: `${site.base}/clean`,
      checks: [{ type: "accessibility" }],
    });
    assert.equal(clean.checks[0].passed, true, JSON.stringify(clean.checks[0].violations));
  });

  test("broken links: 404s and refused targets are broken, working links are not", async () => {
    const r = await s.call("qa.browser_check", {
      url: `${site.base}/article`,
      checks: [{ type: "broken_links" }],
    });
    const c = r.checks[0];
    const broken = Object.fromEntries(c.broken.map((b: { url: string; status: number | null }) => [b.url, b.status]));
    assert.equal(broken[`${site.base}/tariffs`], 404);
    assert.equal(broken[`${site.base}/privacy`], 404);
    assert.ok(!(`${site.base}/` in broken)); // home answers 200
    assert.ok("https://example.org/report" in broken); // no DNS here: no response, with the reason
    assert.equal(c.found, c.checked);
    assert.equal(c.passed, false);
  });

  test("errors: refused URL names the rule, invalid selector names the check, a page that never loads is a 504", async () => {
    const refused = await failure(s.call("qa.browser_check", { url: "http://169.254.169.254/latest/" }));
    assert.equal(refused.code, "validation_failed");
    assert.equal(refused.details?.[0]?.code, "url_refused");
    const unknown = await failure(s.call("qa.browser_check", { url: "https://no-such-host.invalid/" }));
    assert.equal(unknown.details?.[0]?.code, "host_not_found");
    const selector = await failure(
      s.call("qa.browser_check", { url: `${site.base}/clean`, checks: [{ type: "selector", selector: "a[[" }] }),
    );
    assert.equal(selector.code, "validation_failed");
    assert.equal(selector.details?.[0]?.path, "/input/checks/0/selector");
    const hang = await failure(s.call("qa.browser_check", { url: `${site.base}/hang`, timeoutMs: 2000 }));
    assert.equal(hang.code, "timeout");
    assert.match(hang.message, /stage: render/);
    assert.equal(s.ctx.browser.active, 0);
  });
});
