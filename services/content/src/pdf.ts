/**
 * @module content/pdf
 * HTML → PDF in headless Chromium (Debian's `chromium`, driven by playwright-core; never a
 * downloaded browser). One browser is started on first use and shared; each render gets its own
 * context and page, closed afterwards. The page may load nothing from the network: every request
 * other than `data:` is aborted, so a document cannot make the service fetch a URL (no SSRF through
 * `<img src>`); remote images are therefore not embedded in PDFs.
 *
 * playwright-core (≈ 75 MiB once loaded) is imported on the first render, not with the service, and
 * Chromium is ended once no render has run for `idleMs` (the next render starts it again).
 */
import type { Browser } from "playwright-core";
import { callSignal, chromiumLaunchOptions, GantryError } from "@gantry/kit";

export class PdfRenderer {
  #browser: Promise<Browser> | null = null;
  #rendering = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  readonly executablePath: string;
  readonly timeoutMs: number;
  readonly idleMs: number;

  /** `idleMs`: end Chromium after this long without a render (0: keep it running). */
  constructor(executablePath: string, timeoutMs: number, idleMs = 0) {
    this.executablePath = executablePath;
    this.timeoutMs = timeoutMs;
    this.idleMs = idleMs;
  }

  #launch(): Promise<Browser> {
    if (!this.#browser) {
      const launching = import("playwright-core").then(({ chromium }) =>
        chromium.launch({ executablePath: this.executablePath, ...chromiumLaunchOptions(), headless: true }),
      );
      this.#browser = launching;
      launching.then(
        (b) =>
          b.on("disconnected", () => {
            if (this.#browser === launching) this.#browser = null;
          }),
        () => {
          if (this.#browser === launching) this.#browser = null;
        },
      );
    }
    return this.#browser;
  }

  /** Renders a complete HTML document to A4 PDF bytes; answers the page count too. */
  async render(html: string): Promise<{ pdf: Buffer; pages: number }> {
    clearTimeout(this.#idleTimer);
    this.#rendering++;
    try {
      return await this.#render(html);
    } finally {
      if (--this.#rendering === 0 && this.idleMs > 0) {
        this.#idleTimer = setTimeout(() => void this.close(), this.idleMs);
        this.#idleTimer.unref();
      }
    }
  }

  async #render(html: string): Promise<{ pdf: Buffer; pages: number }> {
    let browser: Browser;
    try {
      browser = await this.#launch();
    } catch (err) {
      throw new GantryError("unavailable", "The PDF renderer (Chromium) could not be started; try again later.", {
        cause: err,
      });
    }
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      await context.route("**/*", (route) =>
        route.request().url().startsWith("data:") ? route.continue() : route.abort("blockedbyclient"),
      );
      // A caller that gave up (kit/call-signal) ends the render: closing the context ends its renderer.
      const signal = callSignal();
      signal?.throwIfAborted();
      signal?.addEventListener("abort", () => void context.close().catch(() => {}), { once: true });
      const page = await context.newPage();
      page.setDefaultTimeout(this.timeoutMs);
      await page.setContent(html, { waitUntil: "load", timeout: this.timeoutMs });
      const pdf = await page.pdf({
        format: "A4",
        printBackground: true,
        margin: { top: "18mm", bottom: "18mm", left: "16mm", right: "16mm" },
        displayHeaderFooter: true,
        headerTemplate: "<span></span>",
        footerTemplate: `<div style="font-size:8px;width:100%;text-align:center;color:#6b7280;"><span class="pageNumber"></span> / <span class="totalPages"></span></div>`,
        tagged: true,
        outline: true,
      });
      return { pdf, pages: countPages(pdf) };
    } catch (err) {
      if (err instanceof Error && /Timeout/i.test(err.name + err.message))
        throw new GantryError(
          "timeout",
          `Rendering the PDF took longer than ${this.timeoutMs} ms; shorten the document.`,
          {
            cause: err,
          },
        );
      throw err;
    } finally {
      await context.close().catch(() => {});
    }
  }

  /** Ends Chromium; a later render starts it again. */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    const b = this.#browser;
    this.#browser = null;
    if (b) await (await b.catch(() => null))?.close().catch(() => {});
  }
}

/** Pages of a PDF: its `/Type /Page` objects (not `/Pages`). */
export function countPages(pdf: Buffer): number {
  return pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
}
