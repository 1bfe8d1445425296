/**
 * Chromium's sandbox (kit/src/chromium.ts): the browser the services start asks for it, and only
 * GANTRY_CHROMIUM_NO_SANDBOX=1 turns it off. What is observed is the browser itself: as root,
 * Chromium refuses to start with its sandbox (crbug.com/638180), so a launch that asks for it
 * fails there; anywhere else a launch with it either succeeds sandboxed or fails for the same
 * reason the runner's check gives.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM_NO_SANDBOX_ENV, CHROMIUM_PATH, chromiumLaunchOptions } from "./chromium.ts";

const executablePath = process.env.WEB_CHROMIUM_PATH ?? CHROMIUM_PATH;
const skip = fs.existsSync(executablePath) ? false : `no Chromium at ${executablePath}`;
const root = typeof process.getuid === "function" && process.getuid() === 0;

test("without the setting the browser is started with its sandbox", { skip }, async () => {
  const options = chromiumLaunchOptions([], {});
  assert.ok(!options.args.includes("--no-sandbox"));
  if (root) {
    await assert.rejects(
      chromium.launch({ executablePath, ...options, timeout: 30_000 }),
      /Running as root without --no-sandbox is not supported/,
    );
    return;
  }
  const browser = await chromium.launch({ executablePath, ...options, timeout: 30_000 });
  try {
    const page = await browser.newPage();
    await page.goto("about:blank");
  } finally {
    await browser.close();
  }
});

test(`${CHROMIUM_NO_SANDBOX_ENV}=1 is the one way to start it without`, { skip }, async () => {
  const options = chromiumLaunchOptions(["--disable-dev-shm-usage"], { [CHROMIUM_NO_SANDBOX_ENV]: "1" });
  assert.deepEqual(options.args.slice(-2), ["--disable-dev-shm-usage", "--no-sandbox"]);
  assert.equal(options.chromiumSandbox, false);
  const browser = await chromium.launch({ executablePath, ...options, timeout: 30_000 });
  await browser.close();
  for (const value of ["0", "true", ""])
    assert.equal(chromiumLaunchOptions([], { [CHROMIUM_NO_SANDBOX_ENV]: value }).chromiumSandbox, true, value);
});
