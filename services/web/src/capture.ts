/**
 * @module web/capture
 * research.verify's `capture` variant: registered official pages (WEB_OFFICIAL_PAGES) read now —
 * robots.txt, the SSRF guard, the browser when the page needs it — and stored per tenant, each
 * compared with the tenant's previous capture of the same page (changed or not, and a unified diff of
 * the extracted text), with a full-page screenshot (a second visit in the browser; null when it
 * cannot render the page). Every URL is checked against the registry before anything is fetched, and every
 * page is read before anything is stored, so a failed call stores nothing.
 */
import { GantryError, sha256Hex } from "@gantry/kit";
import type { Context } from "./context.ts";
import { unifiedDiff } from "./diff.ts";
import { PageFailure, toGantryError } from "./failures.ts";
import { newId } from "./ids.ts";
import { type LoadedPage, loadPage, navigate } from "./page.ts";
import { passagesOf, rank } from "./passages.ts";
import { isRegistered } from "./registry.ts";
import { takeScreenshot } from "./screenshots.ts";

const PAGE_TIMEOUT_MS = 20_000;
const MAX_OBSERVATIONS = 5;

/** A full-page screenshot of a page already read, or null when the browser cannot render it. */
async function screenshotOf(ctx: Context, url: string, tenant: string, baseUrl: string | undefined) {
  try {
    return await ctx.browser.withPage("desktop", PAGE_TIMEOUT_MS, async (session) => {
      await navigate(session, url, "load");
      return takeScreenshot(ctx, session.page, tenant, baseUrl, true);
    });
  } catch (err) {
    ctx.log.warn({ url, err: (err as Error).message }, "capture: no screenshot");
    return null;
  }
}

export async function capturePages(
  ctx: Context,
  tenant: string,
  baseUrl: string | undefined,
  urls: string[],
  focus: string | undefined,
) {
  const keys = urls.map((u) => new URL(u).href);
  keys.forEach((key, i) => {
    if (!isRegistered(ctx.registry, tenant, key))
      throw new GantryError(
        "validation_failed",
        `urls[${i}]: ${key} is not on the registry of official pages; only registered pages can be captured (the operator lists them in WEB_OFFICIAL_PAGES)`,
        { details: [{ path: `/input/urls/${i}`, message: "not a registered official page", code: "not_registered" }] },
      );
  });
  const pages: LoadedPage[] = [];
  for (const [i, key] of keys.entries()) {
    try {
      pages.push(await loadPage(ctx, { url: key, timeoutMs: PAGE_TIMEOUT_MS, renderer: "auto" }));
    } catch (err) {
      if (err instanceof PageFailure) throw toGantryError(err, `/input/urls/${i}`);
      throw err;
    }
  }
  const captures = [];
  for (const [i, page] of pages.entries()) {
    const key = keys[i];
    const text = page.extracted.text;
    const contentSha256 = sha256Hex(text);
    const previous = await ctx.db.capture.findFirst({
      where: { tenant, url: key },
      orderBy: [{ capturedAt: "desc" }, { id: "desc" }],
    });
    const id = newId("capture", page.fetched.getTime());
    await ctx.db.capture.create({
      data: {
        id,
        tenant,
        url: key,
        finalUrl: page.finalUrl,
        status: page.status,
        text,
        contentSha256,
        capturedAt: page.fetched,
      },
    });
    const observations = focus
      ? rank(focus, passagesOf(text, 0))
          .slice(0, MAX_OBSERVATIONS)
          .map((p) => ({
            url: page.finalUrl,
            title: page.extracted.title,
            quote: p.text,
            start: p.start,
            end: p.end,
            contentSha256,
            relevance: p.score,
            published: page.extracted.published,
            fetched: page.fetched.toISOString(),
          }))
      : [];
    const changed = previous ? previous.contentSha256 !== contentSha256 || previous.text !== text : null;
    captures.push({
      id,
      url: urls[i],
      finalUrl: page.finalUrl,
      status: page.status,
      text,
      contentSha256,
      screenshot: await screenshotOf(ctx, page.finalUrl, tenant, baseUrl),
      observations,
      previous: previous
        ? { id: previous.id, captured: previous.capturedAt.toISOString(), contentSha256: previous.contentSha256 }
        : null,
      changed,
      diff:
        previous && changed
          ? unifiedDiff(
              previous.text,
              text,
              `${previous.id}\t${previous.capturedAt.toISOString()}`,
              `${id}\t${page.fetched.toISOString()}`,
            )
          : null,
      captured: page.fetched.toISOString(),
    });
  }
  return { action: "capture" as const, captures };
}
