/**
 * @module web/abilities/web.browse
 * web.browse: one public page as clean Markdown, text or HTML, with how it was obtained (final URL,
 * every redirect hop, the address connected to, status, renderer, fetch time) and a SHA-256 of the
 * content returned. HTTP first; headless Chromium when the page needs JavaScript.
 */
import { createHash } from "node:crypto";
import { ability } from "../context.ts";
import { PageFailure, toGantryError } from "../failures.ts";
import { loadPage } from "../page.ts";
import { takeScreenshot } from "../screenshots.ts";

export default ability("web.browse", async (input, call, ctx) => {
  const started = performance.now();
  let page: Awaited<ReturnType<typeof loadPage>>;
  try {
    page = await loadPage(ctx, {
      url: input.url,
      timeoutMs: input.timeoutMs,
      // A screenshot needs the page rendered.
      renderer: input.screenshot ? "browser" : input.renderer,
      waitUntil: input.waitUntil,
      viewport: input.viewport,
      onPage: input.screenshot ? (p) => takeScreenshot(ctx, p, call.tenant, call.baseUrl, false) : undefined,
    });
  } catch (err) {
    if (err instanceof PageFailure) throw toGantryError(err);
    throw err;
  }
  const x = page.extracted;
  const whole = input.format === "markdown" ? x.markdown : input.format === "text" ? x.text : x.html;
  const cut = whole.length > input.maxChars;
  const content = cut ? whole.slice(0, input.maxChars) : whole;
  return {
    url: input.url,
    finalUrl: page.finalUrl,
    status: page.status,
    redirects: page.redirects,
    resolvedIp: page.resolvedIp,
    renderer: page.renderer,
    contentType: page.contentType,
    title: x.title,
    byline: x.byline,
    excerpt: x.excerpt,
    siteName: x.siteName,
    lang: x.lang,
    published: x.published,
    format: input.format,
    content,
    truncated: cut || page.bodyTruncated,
    contentChars: whole.length,
    sha256: createHash("sha256").update(content, "utf8").digest("hex"),
    links: x.links,
    screenshot: (page.fromPage as Awaited<ReturnType<typeof takeScreenshot>> | undefined) ?? null,
    fetched: page.fetched.toISOString(),
    durationMs: Math.round(performance.now() - started),
  };
});
