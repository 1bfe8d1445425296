/**
 * @module web/research
 * What web.research and research.verify share: ask the search provider, read the results through
 * page.ts (robots.txt, SSRF guard, browser when needed; three at a time, each with its own deadline
 * inside the call's), cut each page's extracted text into passages and rank them against the query.
 * A source that cannot be read is listed with the reason, never silently dropped.
 */
import { GantryError, sha256Hex } from "@gantry/kit";
import type { Context } from "./context.ts";
import { PageFailure } from "./failures.ts";
import { type LoadedPage, loadPage } from "./page.ts";
import { type Passage, passagesOf, type Ranked, rank } from "./passages.ts";
import type { SearchRequest, SearchResult } from "./search.ts";

const READ_CONCURRENCY = 3;
const PAGE_TIMEOUT_MS = 15_000;

export interface Source {
  result: SearchResult;
  page: LoadedPage | null;
  contentSha256: string | null;
  error: string | null;
}

export interface ResearchRun {
  provider: string;
  searched: Date;
  sources: Source[];
  ranked: Ranked[];
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function research(ctx: Context, req: SearchRequest): Promise<ResearchRun> {
  if (!ctx.search)
    throw new GantryError(
      "not_implemented",
      "No search provider is configured for this deployment (WEB_SEARXNG_URL), so web search is not available.",
      { reason: "no_search_provider" },
    );
  const searched = new Date(ctx.now());
  const results = await ctx.search.search(req);
  const sources = await mapLimit(results, READ_CONCURRENCY, async (result): Promise<Source> => {
    try {
      const page = await loadPage(ctx, { url: result.url, timeoutMs: PAGE_TIMEOUT_MS, renderer: "auto" });
      const text = page.extracted.text;
      if (!text) return { result, page, contentSha256: sha256Hex(text), error: "the page has no extractable text" };
      return { result, page, contentSha256: sha256Hex(text), error: null };
    } catch (err) {
      if (err instanceof PageFailure) return { result, page: null, contentSha256: null, error: err.message };
      if (err instanceof GantryError) return { result, page: null, contentSha256: null, error: err.message };
      throw err;
    }
  });
  const passages: Passage[] = [];
  sources.forEach((s, i) => {
    if (s.page && !s.error) passages.push(...passagesOf(s.page.extracted.text, i));
  });
  return { provider: ctx.search.name, searched, sources, ranked: rank(req.query, passages) };
}
