/**
 * @module web/page
 * Loading one page, the way every ability here reads the web: robots.txt first, then over HTTP
 * through the SSRF guard (each redirect hop fetched and re-checked on its own, so the result can
 * list every hop with its status), extracted with Readability; when the page is mostly script (under
 * {@link MIN_TEXT_CHARS} characters of text and a `<script>`), or the caller asks, it is rendered in
 * headless Chromium instead, whose traffic goes through the same guard (browser.ts). One deadline
 * covers the whole load.
 */
import { isIP } from "node:net";
import { SsrfBlockedError, SsrfFetchError } from "@gantry/kit";
import type { Page, Response } from "playwright-core";
import { BrowserUnavailableError, PageTimeoutError, type PageSession, type ViewportName } from "./browser.ts";
import type { Context } from "./context.ts";
import { type Extracted, extractText } from "./extract.ts";
import { PageFailure, pageFailure } from "./failures.ts";

/** Below this much extracted text, a page with scripts is rendered in the browser. */
export const MIN_TEXT_CHARS = 200;

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

export interface LoadOptions {
  url: string;
  timeoutMs: number;
  /** `auto`: HTTP, then the browser when the page needs it; `browser`: always render. */
  renderer: "auto" | "http" | "browser";
  waitUntil?: "load" | "domcontentloaded" | "networkidle";
  viewport?: ViewportName;
  /** Called with the rendered page before it is closed (browser only), e.g. for a screenshot. */
  onPage?: (page: Page) => Promise<unknown>;
}

export interface LoadedPage {
  url: string;
  finalUrl: string;
  status: number;
  redirects: { url: string; status: number }[];
  resolvedIp: string;
  renderer: "http" | "browser";
  contentType: string | null;
  extracted: Extracted;
  /** The body was longer than the size cap and was cut there. */
  bodyTruncated: boolean;
  fetched: Date;
  /** What `onPage` answered (browser only). */
  fromPage?: unknown;
}

/**
 * Checks a URL before the browser is given it: the guard's URL rules and, for a name, one resolution
 * (every address checked), so a refused or non-existent host is told as such (400) rather than as
 * the browser's network error. The proxy still checks every connection the browser makes.
 */
export async function preflight(ctx: Context, input: string): Promise<string> {
  try {
    const url = ctx.guard.checkUrl(input);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (!isIP(host))
      await ctx.guard.resolveChecked(host, url.href).catch((err: unknown) => {
        throw err instanceof SsrfBlockedError
          ? err
          : new SsrfFetchError("EFETCH", "connect", url.href, `${url.href}: ${(err as Error).message}`, err);
      });
    return url.href;
  } catch (err) {
    throw pageFailure(err, input);
  }
}

export async function loadPage(ctx: Context, opts: LoadOptions): Promise<LoadedPage> {
  const deadline = Date.now() + opts.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  let url: URL;
  try {
    url = ctx.guard.checkUrl(opts.url);
  } catch (err) {
    throw pageFailure(err, opts.url);
  }
  await ctx.robots.check(url.href, left());
  if (opts.renderer !== "browser") {
    const viaHttp = await loadOverHttp(ctx, url.href, opts.url, left);
    if (opts.renderer === "http" || !needsBrowser(viaHttp)) return viaHttp;
    try {
      return await loadInBrowser(ctx, { ...opts, url: url.href }, left());
    } catch (err) {
      // The HTTP result stands when the browser cannot help (not installed, or it failed where HTTP did not).
      if (err instanceof BrowserUnavailableError) {
        ctx.log.warn({ err: err.message }, "browser unavailable; returning the HTTP extraction");
        return viaHttp;
      }
      throw err;
    }
  }
  return loadInBrowser(ctx, { ...opts, url: url.href }, left());
}

function needsBrowser(p: LoadedPage): boolean {
  return p.extracted.hasScripts && p.extracted.text.length < MIN_TEXT_CHARS && (p.contentType ?? "").includes("html");
}

function charsetOf(contentType: string | null): string {
  const m = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "");
  const label = m?.[1]?.toLowerCase() ?? "utf-8";
  try {
    new TextDecoder(label);
    return label;
  } catch {
    return "utf-8";
  }
}

function isHtml(contentType: string | null, body: string): boolean {
  if (!contentType) return /^\s*(<!doctype html|<html)/i.test(body);
  return /\b(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

function isText(contentType: string | null): boolean {
  return contentType === null || /^(text\/|application\/(json|xml|[\w.+-]+\+(json|xml))\b)/i.test(contentType);
}

async function loadOverHttp(ctx: Context, href: string, asked: string, left: () => number): Promise<LoadedPage> {
  const redirects: { url: string; status: number }[] = [];
  let current = href;
  for (let hop = 0; ; hop++) {
    let res: Awaited<ReturnType<typeof ctx.guard.fetch>>;
    try {
      res = await ctx.guard.fetch(current, {
        redirect: "manual",
        timeoutMs: left(),
        headers: {
          "user-agent": ctx.config.WEB_USER_AGENT,
          accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
          "accept-language": "en;q=0.9,*;q=0.5",
        },
      });
    } catch (err) {
      throw pageFailure(err, asked);
    }
    const location = res.headers.get("location");
    if (REDIRECT.has(res.status) && location) {
      redirects.push({ url: current, status: res.status });
      if (hop >= MAX_REDIRECTS)
        throw new PageFailure("unreachable", "response", `${asked}: more than ${MAX_REDIRECTS} redirects`);
      let next: string;
      try {
        next = ctx.guard.checkUrl(new URL(location, current)).href;
      } catch (err) {
        throw pageFailure(err, asked);
      }
      await ctx.robots.check(next, left());
      current = next;
      continue;
    }
    const contentType = res.headers.get("content-type");
    const body = new TextDecoder(charsetOf(contentType)).decode(res.body);
    let extracted: Extracted;
    if (isHtml(contentType, body)) extracted = await ctx.reader.call({ html: body, url: res.url });
    else if (isText(contentType)) extracted = extractText(body);
    else
      throw new PageFailure(
        "not_text",
        "body",
        `${res.url} is ${contentType}, not a text or HTML page; only text can be extracted`,
      );
    return {
      url: asked,
      finalUrl: res.url,
      status: res.status,
      redirects,
      resolvedIp: res.address ?? "",
      renderer: "http",
      contentType,
      extracted,
      bodyTruncated: res.truncated,
      fetched: new Date(ctx.now()),
    };
  }
}

/** Redirect hops of a navigation, oldest first, each with its status. */
async function redirectChain(response: Response): Promise<{ url: string; status: number }[]> {
  const hops: { url: string; status: number }[] = [];
  let req = response.request().redirectedFrom();
  while (req) {
    const r = await req.response();
    hops.unshift({ url: req.url(), status: r?.status() ?? 0 });
    req = req.redirectedFrom();
  }
  return hops;
}

/** Navigates `session.page` to `url`; turns the proxy's refusals and Chromium's net errors into PageFailures. */
export async function navigate(
  session: PageSession,
  url: string,
  waitUntil: LoadOptions["waitUntil"] = "load",
): Promise<Response> {
  let response: Response | null;
  try {
    response = await session.page.goto(url, { waitUntil });
  } catch (err) {
    // An https hop the proxy refused fails the navigation as a tunnel error; the refusal it
    // recorded (the latest one, as the navigation's own hop comes last) says why.
    const tunnel = err instanceof Error && /ERR_TUNNEL_CONNECTION_FAILED|ERR_PROXY_CONNECTION_FAILED/.test(err.message);
    const hop = tunnel ? session.blocked.at(-1) : undefined;
    if (hop)
      throw new PageFailure(
        "refused",
        "render",
        `${url} led to ${hop.url}, which is refused: ${hop.message}`,
        hop.rule,
      );
    throw browserFailure(err, url);
  }
  if (!response) throw new PageFailure("unreachable", "render", `${url}: the browser received no response`);
  const refused = response.headers()["x-gantry-ssrf"];
  if (refused) {
    const hop = session.blocked.find((b) => b.url === response.url()) ?? session.blocked[0];
    throw new PageFailure(
      "refused",
      "render",
      `${url} redirected to ${response.url()}, which is refused: ${hop?.message ?? refused}`,
      refused,
    );
  }
  if (response.headers()["x-gantry-proxy-error"])
    throw new PageFailure("unreachable", "connect", `${response.url()}: could not connect (stage: connect)`);
  return response;
}

export function browserFailure(err: unknown, url: string): PageFailure {
  if (err instanceof PageFailure) return err;
  if (err instanceof PageTimeoutError) return new PageFailure("timeout", "render", `${url}: ${err.message}`);
  if (err instanceof Error && err.name === "TimeoutError")
    return new PageFailure("timeout", "render", `${url}: ${err.message.split("\n")[0]} (stage: render)`);
  if (err instanceof BrowserUnavailableError) throw err;
  if (err instanceof SsrfFetchError) return pageFailure(err, url);
  const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
  if (/net::ERR_/.test(message)) return new PageFailure("unreachable", "render", `${url}: ${message} (stage: render)`);
  if (/Target .*closed|has been closed/i.test(message.slice(0, 1000)))
    return new PageFailure("timeout", "render", `${url}: the page was closed at its deadline (stage: render)`);
  throw err;
}

async function loadInBrowser(ctx: Context, opts: LoadOptions, timeoutMs: number): Promise<LoadedPage> {
  try {
    return await ctx.browser.withPage(opts.viewport ?? "desktop", timeoutMs, async (session) => {
      const response = await navigate(session, opts.url, opts.waitUntil);
      const page: Page = session.page;
      const finalUrl = page.url();
      const html = await page.content();
      const headers = response.headers();
      const fromPage = opts.onPage ? await opts.onPage(page) : undefined;
      return {
        fromPage,
        url: opts.url,
        finalUrl,
        status: response.status(),
        redirects: await redirectChain(response),
        resolvedIp: session.addressOf(finalUrl) ?? "",
        renderer: "browser" as const,
        contentType: headers["content-type"] ?? null,
        extracted: await ctx.reader.call({ html, url: finalUrl }),
        bodyTruncated: false,
        fetched: new Date(ctx.now()),
      };
    });
  } catch (err) {
    throw browserFailure(err, opts.url);
  }
}
