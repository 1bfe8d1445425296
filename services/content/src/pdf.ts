/**
 * @module content/pdf
 * HTML → PDF in headless Chromium (Debian's `chromium`, driven by playwright-core; never a
 * downloaded browser). One browser is started on first use and shared; each render gets its own
 * context and page, closed afterwards. The page may load nothing from the network: every request
 * other than `data:` is aborted, so a document cannot make the service fetch a URL (no SSRF through
 * `<img src>`); remote images are therefore not embedded in PDFs.
 */
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_ARGS, GantryError } from "@gantry/kit";

export class PdfRenderer {
  #browser: Promise<Browser> | null = null;
  readonly executablePath: string;
  readonly timeoutMs: number;

  constructor(executablePath: string, timeoutMs: number) {
    this.executablePath = executablePath;
    this.timeoutMs = timeoutMs;
  }

  #launch(): Promise<Browser> {
    if (!this.#browser) {
      const launching = chromium.launch({
        executablePath: this.executablePath,
        args: [...CHROMIUM_ARGS],
        headless: true,
      });
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

  async close(): Promise<void> {
    const b = this.#browser;
    this.#browser = null;
    if (b) await (await b.catch(() => null))?.close().catch(() => {});
  }
}

/** Pages of a PDF: its `/Type /Page` objects (not `/Pages`). */
export function countPages(pdf: Buffer): number {
  return pdf.toString("latin1").match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
}
