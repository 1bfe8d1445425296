/**
 * @module bench/web-pages
 * web.browse's page pipeline on a local page, HTTP path and browser path: pages per second and pages
 * per CPU-second (this process and its Chromium processes together: one core busy for one second is
 * one CPU-second, so this is "pages per second per core"). In process, no gateway or gRPC: what is
 * measured is fetch (through the SSRF guard), robots.txt (cached), extraction, and for the browser
 * path the render in Chromium through the guard's proxy. The local site runs in this process too.
 * CPU is read from /proc for the live process tree, so a renderer that exited during the run (each
 * page's context is closed) is not counted: the browser path's per-core figure is an upper bound.
 *
 * @example
 * node bench/web-pages.ts --seconds 10 --concurrency 2
 */
import { parseArgs } from "node:util";
import { createClock, createLogger, SsrfGuard } from "@gantry/kit";
import { cpuTicksByRoot, CLK_TCK } from "./lib/proc-stats.ts";
import { BrowserPool } from "../services/web/src/browser.ts";
import type { Context } from "../services/web/src/context.ts";
import { loadPage } from "../services/web/src/page.ts";
import { pageReader } from "../services/web/src/reader.ts";
import { RobotsCache } from "../services/web/src/robots.ts";
import { startSite } from "../services/web/src/test/sites.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    concurrency: { type: "string", default: "2" },
    chromium: { type: "string", default: process.env.WEB_CHROMIUM_PATH ?? "/usr/bin/chromium" },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

const log = createLogger("web-bench", "error");
const guard = new SsrfGuard({ allowLoopback: true, log: { warn: () => {} } });
const userAgent = "GantryBot/0.1 (bench)";
const ctx = {
  config: { WEB_USER_AGENT: userAgent },
  guard,
  robots: new RobotsCache(guard, userAgent),
  browser: new BrowserPool({ executablePath: values.chromium, concurrency, guard, userAgent, log, idleMs: 0 }),
  // Extraction in its idle worker, as the service runs it; kept alive for the whole run.
  reader: pageReader(60_000),
  search: null,
  log,
  now: createClock(),
} as unknown as Context;

const cpuTicks = () => cpuTicksByRoot([process.pid]).get(process.pid) ?? 0;

async function measure(name: string, url: string, renderer: "http" | "browser") {
  await loadPage(ctx, { url, timeoutMs: 30_000, renderer }); // warm-up: robots cache, browser start
  const end = Date.now() + seconds * 1000;
  const startTicks = cpuTicks();
  const started = performance.now();
  let pages = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await loadPage(ctx, { url, timeoutMs: 30_000, renderer });
        pages++;
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const cpu = (cpuTicks() - startTicks) / CLK_TCK;
  console.log(
    `${name.padEnd(8)} ${pages} pages in ${wall.toFixed(1)} s: ${(pages / wall).toFixed(1)} pages/s, ` +
      `${cpu.toFixed(1)} CPU-s → ${(pages / Math.max(cpu, 0.01)).toFixed(1)} pages/s per core`,
  );
}

const site = await startSite();
try {
  console.log(`web.browse pipeline, ${concurrency} at a time, ${seconds} s each (local article page)`);
  await measure("http", `${site.base}/article`, "http");
  await measure("browser", `${site.base}/article`, "browser");
} finally {
  await ctx.browser.close();
  await ctx.reader.close();
  await site.close();
}
