/**
 * The /docs page in a real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * load it, paste a key, see the key's abilities, take a screenshot (kept in a temporary directory,
 * whose path the test prints). Also: the key never reaches a URL, cookies or localStorage (and
 * sessionStorage only when asked), the page obeys its CSP (no console errors), and it shows the
 * same content as the Markdown docs (same curl command, same abilities, the key's rate limit).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? CHROMIUM_PATH;
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium`);

let t: TestStack;
let key: string;
let expectedIds: string[];
let browser: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const profileDir = mkdtempSync(join(tmpdir(), "gantry-chromium-"));
const shotDir = mkdtempSync(join(tmpdir(), "gantry-docs-screenshot-"));

before(async () => {
  if (!haveChromium) return;
  t = await startTestStack({ services: ["keys"] });
  key = (
    await t.insertKey({
      tenant: "acme",
      scopes: ["contact.*", "capability.discover", "gantry.about"],
      rateLimit: 120,
      rateWindowSeconds: 60,
    })
  ).key;
  const list = await request(t.url).get("/v1/abilities").set("Authorization", `Bearer ${key}`).expect(200);
  expectedIds = list.body.abilities.map((a: { id: string }) => a.id);
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1360, height: 1000 },
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("pageerror", (err) => consoleErrors.push(String(err)));
});

after(async () => {
  await browser?.close().catch(() => {});
  await t?.stop();
  rmSync(profileDir, { recursive: true, force: true });
});

// Callbacks below run in the page; the test's TypeScript has no DOM types, hence the loose casts.
type Dom = {
  document: {
    cookie: string;
    documentElement: { outerHTML: string };
    querySelector: (s: string) => { classList: { contains: (c: string) => boolean } } | null;
  };
};
const renderedIds = () =>
  page.$$eval("article.ability", (els) =>
    els.filter((e) => !(e as unknown as { hidden: boolean }).hidden).map((e) => e.id.replace(/^ability-/, "")),
  );

describe("/docs in headless Chromium", { skip: haveChromium ? false : `no Chromium at ${CHROMIUM}` }, () => {
  test("load, paste a key, see exactly its abilities; screenshot", async (ctx) => {
    await page.goto(`${t.url}/docs`);
    assert.match((await page.textContent("#load-status")) ?? "", /Paste a key/);
    assert.equal(await page.$$eval("article.ability", (els) => els.length), 0);

    await page.fill("#api-key", key);
    await page.click("#load");
    await page.waitForSelector("article.ability");
    assert.deepEqual(await renderedIds(), expectedIds);
    assert.match(
      (await page.textContent("#load-status")) ?? "",
      new RegExp(`may call ${expectedIds.length} abilities`),
    );
    assert.match((await page.textContent("#key-summary")) ?? "", /Tenant acme/);
    assert.equal(
      await page.$$eval("section.area", (els) => els.map((e) => e.id).join(",")),
      "area-capability,area-contact,area-gantry,area-key,area-vertical",
    );

    await page.click("#ability-contact\\.create summary");
    await page.locator("#ability-contact\\.create").scrollIntoViewIfNeeded();
    const shot = join(shotDir, "docs.png");
    await page.screenshot({ path: shot });
    const png = readFileSync(shot);
    assert.equal(png.subarray(1, 4).toString(), "PNG");
    assert.ok(png.length > 20_000, `screenshot is only ${png.length} bytes`);
    ctx.diagnostic(`screenshot: ${shot}`);
  });

  test("the key stays in the tab: not in the URL, cookies, localStorage or (unasked) sessionStorage", async () => {
    assert.equal(page.url(), `${t.url}/docs`);
    const storage = await page.evaluate(() => {
      const { document } = globalThis as unknown as Dom;
      return {
        cookie: document.cookie,
        local: JSON.stringify(localStorage),
        session: JSON.stringify(sessionStorage),
        html: document.documentElement.outerHTML,
      };
    });
    assert.ok(!storage.cookie.includes(key));
    assert.ok(!storage.local.includes(key));
    assert.ok(!storage.session.includes(key));
    assert.ok(
      !storage.html.includes(key),
      "the key is not written into the DOM (only the password field's value holds it)",
    );
  });

  test("same content as the Markdown docs: the same curl command, the key's rate limit, MCP setup", async () => {
    const md = (
      await request(t.url).get("/docs").set("Accept", "text/markdown").set("Authorization", `Bearer ${key}`).expect(200)
    ).text;
    const section = md.slice(md.indexOf("#### contact.create\n"));
    const mdCurl = section.slice(
      section.indexOf("```shell\n") + 9,
      section.indexOf("\n```", section.indexOf("```shell\n")),
    );
    const pageCurl = await page.$eval("#ability-contact\\.create .snippet pre", (e) => e.textContent);
    assert.equal(pageCurl, mdCurl);
    for (const id of expectedIds) assert.ok(md.includes(`#### ${id}\n`));
    assert.match((await page.textContent("#rate-limit-row")) ?? "", /120 requests per 60 s/);
    const mcp = (await page.textContent("#mcp")) ?? "";
    assert.ok(mcp.includes(`${t.url}/mcp`));
    for (const host of ["Claude Code", "Cursor", "VS Code", "Claude Desktop", "Codex", "Gemini CLI"])
      assert.ok(mcp.includes(host), host);
    // The Limits rows about one ability show only the key's own abilities (the Markdown's rows).
    const shown = await page.$$eval("#limits tr[data-ability]", (rows) =>
      rows.filter((r) => !(r as unknown as { hidden: boolean }).hidden).map((r) => r.getAttribute("data-ability")),
    );
    assert.deepEqual(shown, ["vertical.manifest_get"]);
    const mdLimits = md.slice(md.indexOf("## Limits"), md.indexOf("## MCP"));
    assert.ok(mdLimits.includes("| vertical.manifest_get |") && !mdLimits.includes("key.rotate"), mdLimits);
    assert.ok(await page.isHidden('#limits tr[data-ability="key.rotate"]'));
    assert.match((await page.textContent("#errors")) ?? "", /rate_limited/);
  });

  test("the filter narrows the list", async () => {
    await page.fill("#filter", "update");
    assert.deepEqual(await renderedIds(), ["contact.update"]);
    await page.fill("#filter", "");
    assert.deepEqual(await renderedIds(), expectedIds);
  });

  test("'keep for this tab' uses sessionStorage and survives a reload; Forget clears it", async () => {
    await page.check("#remember");
    await page.click("#load");
    assert.equal(await page.evaluate(() => sessionStorage.getItem("gantry.docs.key")), key);
    await page.reload();
    await page.waitForSelector("article.ability");
    assert.deepEqual(await renderedIds(), expectedIds);
    await page.click("#forget");
    assert.equal(await page.evaluate(() => sessionStorage.getItem("gantry.docs.key")), null);
    assert.equal(await page.$$eval("article.ability", (els) => els.length), 0);
    assert.equal(await page.inputValue("#api-key"), "");
  });

  test("an unknown key shows the 401 message and no abilities", async () => {
    await page.fill("#api-key", "gk_thisIsNotAKeyAtAll0000000000000000000");
    await page.click("#load");
    await page.waitForFunction(() =>
      (globalThis as unknown as Dom).document.querySelector("#load-status")?.classList.contains("error"),
    );
    assert.match((await page.textContent("#load-status")) ?? "", /not recognised \(401\)/);
    assert.equal(await page.$$eval("article.ability", (els) => els.length), 0);
  });

  test("no console errors (the page runs under its CSP)", () => {
    // The 401 of the previous test is logged by Chromium as a failed resource; nothing else may be.
    const unexpected = consoleErrors.filter((e) => !/status of 401/.test(e));
    assert.deepEqual(unexpected, []);
  });
});
