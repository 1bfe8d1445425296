/**
 * @module web/browser
 * The browser pool: one headless Chromium (playwright-core driving the Debian `chromium`), started on
 * first use, each page in its own fresh context (no cookies or storage shared between calls), at most
 * `concurrency` pages at once (the rest wait for a slot), each with a deadline after which its
 * context is closed — which ends the page's renderer — whatever the page is doing.
 *
 * Every request the browser makes goes through the SSRF guard's filtering proxy
 * (kit/src/ssrf-proxy.ts) with `--proxy-bypass-list=<-loopback>`, so not even loopback escapes it;
 * service workers are blocked (they would fetch outside the page's lifetime); WebRTC may not use
 * non-proxied UDP. A browser that crashes or disconnects is replaced on the next use; `close()` ends
 * Chromium and the proxy (no orphaned processes).
 *
 * Chromium (≈ 500 MiB over its processes after a burst of pages) is ended once no page has been open
 * for `idleMs`, and started again by the next page: memory goes back after a burst, at the cost of
 * one browser start (≈ 0.5 s) for the first page after a quiet spell. playwright-core itself (≈ 75
 * MiB) is imported on the first page, not with the service.
 */
import { callSignal, chromiumLaunchOptions, type Logger, type SsrfGuard } from "@gantry/kit";
import { type SsrfProxy, startSsrfProxy } from "@gantry/kit/ssrf-proxy.ts";
import type { Browser, BrowserContext, Page } from "playwright-core";

export const VIEWPORTS = {
  desktop: { viewport: { width: 1366, height: 768 }, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
  mobile: {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
    mobileUserAgent: true,
  },
} as const;

export type ViewportName = keyof typeof VIEWPORTS;

const ARGS = [
  "--disable-dev-shm-usage",
  // WebRTC would otherwise reach peers over UDP around the filtering proxy.
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  // Loopback too goes through the proxy, which decides (Chromium bypasses it for loopback by default).
  "--proxy-bypass-list=<-loopback>",
];

export interface BrowserPoolOptions {
  executablePath: string;
  concurrency: number;
  guard: SsrfGuard;
  userAgent: string;
  log: Pick<Logger, "warn" | "info">;
  /** End Chromium after this long without an open page (0: keep it running). */
  idleMs: number;
}

export interface PageSession {
  page: Page;
  context: BrowserContext;
  /** URLs the proxy refused while this session was open (any page; for the error message). */
  blocked: { url: string; rule: string; message: string }[];
  /** The address last connected to for a URL's host and port. */
  addressOf(url: string): string | undefined;
}

export class BrowserUnavailableError extends Error {}

export class BrowserPool {
  #browser: Promise<{ browser: Browser; proxy: SsrfProxy }> | null = null;
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #sessions = new Set<{ blocked: PageSession["blocked"] }>();
  #closed = false;
  #idleTimer: NodeJS.Timeout | undefined;
  private readonly options: BrowserPoolOptions;

  constructor(options: BrowserPoolOptions) {
    this.options = options;
  }

  /** Pages open now (for tests and metrics). */
  get active(): number {
    return this.#active;
  }

  /**
   * Runs `work` with a fresh page, closed when `work` settles or `deadlineMs` passes (then the
   * returned promise rejects with a `PageTimeoutError`).
   */
  async withPage<T>(
    viewport: ViewportName,
    deadlineMs: number,
    work: (session: PageSession) => Promise<T>,
  ): Promise<T> {
    const started = Date.now();
    await this.#acquire(deadlineMs);
    let context: BrowserContext | undefined;
    const record = { blocked: [] as PageSession["blocked"] };
    this.#sessions.add(record);
    let timer: NodeJS.Timeout | undefined;
    // The call this page works for (kit/call-signal): a caller that gave up ends the page as its deadline does.
    const signal = callSignal();
    let onAbort: (() => void) | undefined;
    // One deadline from here on: starting Chromium, opening the context and the work all count.
    const deadline = new Promise<never>((_, reject) => {
      onAbort = () => {
        reject(signal?.reason);
        context?.close().catch(() => {});
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
      timer = setTimeout(
        () => {
          reject(new PageTimeoutError(deadlineMs));
          // Closing the context ends the page's renderer, whatever it is doing.
          context?.close().catch(() => {});
        },
        Math.max(1, deadlineMs - (Date.now() - started)),
      );
    });
    const run = async (): Promise<T> => {
      const { browser, proxy } = await this.#launch();
      const v = VIEWPORTS[viewport];
      const opened = await browser.newContext({
        viewport: v.viewport,
        isMobile: v.isMobile,
        hasTouch: v.hasTouch,
        deviceScaleFactor: v.deviceScaleFactor,
        userAgent:
          "mobileUserAgent" in v
            ? `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36 ${this.options.userAgent}`
            : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 ${this.options.userAgent}`,
        serviceWorkers: "block",
        acceptDownloads: false,
        javaScriptEnabled: true,
      });
      context = opened;
      if (timedOut) {
        // The deadline passed while the context opened: nobody else will close it.
        await opened.close().catch(() => {});
        throw new PageTimeoutError(deadlineMs);
      }
      const page = await opened.newPage();
      const remaining = Math.max(1, deadlineMs - (Date.now() - started));
      page.setDefaultTimeout(remaining);
      page.setDefaultNavigationTimeout(remaining);
      return work({
        page,
        context: opened,
        blocked: record.blocked,
        addressOf: (url) => {
          const u = new URL(url);
          return proxy.addressOf(u.hostname, Number(u.port || (u.protocol === "https:" ? 443 : 80)));
        },
      });
    };
    let timedOut = false;
    deadline.catch(() => {
      timedOut = true;
    });
    try {
      return await Promise.race([run(), deadline]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      this.#sessions.delete(record);
      await context?.close().catch(() => {});
      this.#release();
    }
  }

  async #acquire(deadlineMs: number): Promise<void> {
    if (this.#closed) throw new BrowserUnavailableError("the browser pool is closed");
    clearTimeout(this.#idleTimer);
    if (this.#active < this.options.concurrency) {
      this.#active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.#waiting.indexOf(grant);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(new PageTimeoutError(deadlineMs, "browser slot"));
      }, deadlineMs);
      this.#waiting.push(grant);
    });
    // The slot was handed over by #release without decrementing.
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active--;
    if (this.#active === 0 && this.options.idleMs > 0 && !this.#closed) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = setTimeout(() => void this.#endIdle(), this.options.idleMs);
      this.#idleTimer.unref();
    }
  }

  async #endIdle(): Promise<void> {
    const running = this.#browser;
    if (this.#active > 0 || !running) return;
    // Forgotten first, so a page asked for while it closes starts a new browser.
    this.#browser = null;
    const { browser, proxy } = await running.catch(() => ({ browser: null, proxy: null }));
    await browser?.close().catch(() => {});
    await proxy?.close().catch(() => {});
  }

  #launch(): Promise<{ browser: Browser; proxy: SsrfProxy }> {
    if (this.#browser) return this.#browser;
    const starting = (async () => {
      const proxy = await startSsrfProxy(this.options.guard, {
        onBlocked: (url, rule, message) => {
          for (const s of this.#sessions) s.blocked.push({ url, rule, message });
        },
      });
      try {
        const { chromium } = await import("playwright-core");
        const browser = await chromium.launch({
          executablePath: this.options.executablePath,
          ...chromiumLaunchOptions([...ARGS, `--proxy-server=${proxy.url}`]),
          timeout: 30_000,
        });
        browser.on("disconnected", () => {
          if (this.#browser === starting) this.#browser = null;
          proxy.close().catch(() => {});
        });
        return { browser, proxy };
      } catch (err) {
        await proxy.close();
        throw new BrowserUnavailableError(`Chromium could not be started: ${(err as Error).message.split("\n")[0]}`, {
          cause: err,
        });
      }
    })();
    this.#browser = starting;
    starting.catch(() => {
      if (this.#browser === starting) this.#browser = null;
    });
    return starting;
  }

  /** Closes Chromium and the proxy; pages still open are ended. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#idleTimer);
    const running = this.#browser;
    this.#browser = null;
    if (!running) return;
    const { browser, proxy } = await running.catch(() => ({ browser: null, proxy: null }));
    await browser?.close().catch(() => {});
    await proxy?.close().catch(() => {});
  }
}

export class PageTimeoutError extends Error {
  readonly timeoutMs: number;
  readonly stage: string;
  constructor(timeoutMs: number, stage = "render") {
    super(`the page did not finish within ${timeoutMs} ms (stage: ${stage})`);
    this.name = "PageTimeoutError";
    this.timeoutMs = timeoutMs;
    this.stage = stage;
  }
}
