/**
 * @module web/abilities/qa.browser_check
 * qa.browser_check: loads a page in headless Chromium (its traffic through the SSRF guard's proxy,
 * the pool's concurrency cap and the call's deadline) and runs the requested checks against it:
 * status, visible text, selector, console errors, accessibility (axe-core) and broken links; with
 * page timings (DOMContentLoaded, load, Largest Contentful Paint where the browser reports it).
 * robots.txt is not consulted: this checks a page for its owner, it does not crawl.
 */
import { GantryError } from "@gantry/kit";
import { BrowserUnavailableError } from "../browser.ts";
import { ability } from "../context.ts";
import { type CheckInput, type ConsoleError, runCheck } from "../checks.ts";
import { PageFailure, toGantryError } from "../failures.ts";
import { browserFailure, navigate, preflight } from "../page.ts";
import { takeScreenshot } from "../screenshots.ts";

const DEFAULT_CHECKS: CheckInput[] = [{ type: "status", expect: 200 }, { type: "no_console_errors" }];

export default ability("qa.browser_check", async (input, call, ctx) => {
  const started = performance.now();
  const deadline = Date.now() + input.timeoutMs;
  let url: string;
  try {
    url = await preflight(ctx, input.url);
  } catch (err) {
    if (err instanceof PageFailure) throw toGantryError(err);
    throw err;
  }
  const checks = (input.checks as CheckInput[] | undefined) ?? DEFAULT_CHECKS;
  const checked = new Date(ctx.now());
  try {
    return await ctx.browser.withPage(input.viewport, input.timeoutMs, async (session) => {
      const { page } = session;
      const errors: ConsoleError[] = [];
      page.on("console", (m) => {
        if (m.type() !== "error") return;
        const loc = m.location();
        errors.push({
          kind: "console",
          message: m.text(),
          source: loc.url || null,
          line: loc.url ? loc.lineNumber + 1 : null,
        });
      });
      page.on("pageerror", (e) => {
        const at = /\((https?:[^)\s]+):(\d+):\d+\)|at (https?:\S+):(\d+):\d+/.exec((e.stack ?? "").slice(0, 2000)); // the page writes its stack: only the top frames are read
        errors.push({
          kind: "exception",
          message: e.message,
          source: at ? (at[1] ?? at[3]) : null,
          line: at ? Number(at[2] ?? at[4]) : null,
        });
      });
      // Buffered, so the entries recorded before this script ran are seen too.
      await page.addInitScript(() => {
        // biome-ignore lint/suspicious/noExplicitAny: a page global for the LCP reading below
        const w = window as any;
        w.__gantryLcp = null;
        try {
          new PerformanceObserver((list) => {
            const entries = list.getEntries();
            if (entries.length) w.__gantryLcp = entries[entries.length - 1].startTime;
          }).observe({ type: "largest-contentful-paint", buffered: true });
        } catch {}
      });
      const response = await navigate(session, url, "load");
      // Uncaught exceptions thrown right after load (timers) still count.
      await page.waitForTimeout(Math.min(250, Math.max(0, deadline - Date.now() - 100)));
      const timings = await page.evaluate(() => {
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
        // biome-ignore lint/suspicious/noExplicitAny: the page global set by the init script
        const lcp = (window as any).__gantryLcp as number | null;
        return {
          domContentLoadedMs: Math.round(nav?.domContentLoadedEventEnd ?? 0),
          loadMs: Math.round(nav?.loadEventEnd ?? 0),
          lcpMs: typeof lcp === "number" ? Math.round(lcp * 10) / 10 : null,
        };
      });
      const facts = { status: response.status(), errors: [...errors] };
      const results = [];
      for (const [i, check] of checks.entries())
        results.push(await runCheck(check, i, page, facts, ctx.guard, ctx.config.WEB_USER_AGENT, deadline));
      const screenshot = input.screenshot ? await takeScreenshot(ctx, page, call.tenant, call.baseUrl, true) : null;
      return {
        url: input.url,
        finalUrl: page.url(),
        status: response.status(),
        viewport: input.viewport,
        passed: results.every((r) => r.passed === true),
        checks: results,
        timings,
        screenshot,
        checked: checked.toISOString(),
        durationMs: Math.round(performance.now() - started),
      };
    });
  } catch (err) {
    if (err instanceof GantryError) throw err;
    if (err instanceof BrowserUnavailableError)
      throw new GantryError("unavailable", "The browser could not be started; retry shortly.", { cause: err });
    const failure = err instanceof PageFailure ? err : browserFailure(err, input.url);
    throw toGantryError(failure);
  }
});
