/**
 * @module web/search
 * Search providers behind one interface. `SearxngProvider` speaks SearXNG's JSON API
 * (`GET /search?q=…&format=json`, optional `language`, `time_range`, `pageno`; answer
 * `{ query, results: [{ url, title, content, publishedDate, engine, score }] }`). The provider is an
 * operator-configured endpoint (WEB_SEARXNG_URL), not a caller's URL, so it is reached directly;
 * the result URLs it returns are callers' business and go through the SSRF guard when read.
 */
import { GantryError, stopsWithCall } from "@gantry/kit";
import { fetch as undiciFetch } from "undici";

export interface SearchRequest {
  query: string;
  /** Results wanted (after domain filtering). */
  limit: number;
  recencyDays?: number;
  includeDomains?: readonly string[];
  excludeDomains?: readonly string[];
  locale?: string;
}

export interface SearchResult {
  url: string;
  title: string | null;
  snippet: string | null;
  published: string | null;
}

export interface SearchProvider {
  readonly name: string;
  search(req: SearchRequest): Promise<SearchResult[]>;
}

function onDomain(host: string, domain: string): boolean {
  const h = host.toLowerCase();
  const d = domain.toLowerCase();
  return h === d || h.endsWith(`.${d}`);
}

/** Keeps results inside `include` (when given) and outside `exclude`. */
export function filterDomains(
  results: SearchResult[],
  include?: readonly string[],
  exclude?: readonly string[],
): SearchResult[] {
  return results.filter((r) => {
    let host: string;
    try {
      host = new URL(r.url).hostname;
    } catch {
      return false;
    }
    if (include?.length && !include.some((d) => onDomain(host, d))) return false;
    return !exclude?.some((d) => onDomain(host, d));
  });
}

function timeRange(days: number | undefined): string | undefined {
  if (!days) return undefined;
  if (days <= 1) return "day";
  if (days <= 7) return "week";
  if (days <= 31) return "month";
  return "year";
}

export class SearxngProvider implements SearchProvider {
  readonly name = "searxng";
  readonly #base: URL;
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  constructor(baseUrl: string, timeoutMs: number, userAgent: string) {
    this.#base = new URL(baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
    this.#timeoutMs = timeoutMs;
    this.#userAgent = userAgent;
  }

  async search(req: SearchRequest): Promise<SearchResult[]> {
    // SearXNG understands `site:`; one domain narrows the search upstream, more are filtered here.
    const q = req.includeDomains?.length === 1 ? `${req.query} site:${req.includeDomains[0]}` : req.query;
    const url = new URL("search", this.#base);
    url.searchParams.set("q", q);
    url.searchParams.set("format", "json");
    if (req.locale) url.searchParams.set("language", req.locale);
    const range = timeRange(req.recencyDays);
    if (range) url.searchParams.set("time_range", range);
    let body: unknown;
    try {
      const res = await undiciFetch(url, {
        headers: { accept: "application/json", "user-agent": this.#userAgent },
        // The call's own signal too (kit/call-signal): a caller that gave up stops the search.
        signal: stopsWithCall(AbortSignal.timeout(this.#timeoutMs)),
      });
      if (!res.ok) throw new Error(`answered HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
      throw new GantryError(
        timedOut ? "timeout" : "upstream_failed",
        `The search provider (searxng) ${timedOut ? `did not answer within ${this.#timeoutMs} ms` : `failed: ${(err as Error).message}`} (stage: search)`,
        { reason: timedOut ? "timeout_search" : "search_failed", cause: err },
      );
    }
    const raw = (body as { results?: unknown }).results;
    if (!Array.isArray(raw))
      throw new GantryError(
        "upstream_failed",
        "The search provider (searxng) answered without a results list (stage: search)",
        {
          reason: "search_failed",
        },
      );
    const seen = new Set<string>();
    const results: SearchResult[] = [];
    for (const r of raw as Record<string, unknown>[]) {
      if (typeof r?.url !== "string" || !/^https?:\/\//i.test(r.url) || seen.has(r.url)) continue;
      seen.add(r.url);
      results.push({
        url: r.url,
        title: typeof r.title === "string" && r.title.trim() ? r.title.trim() : null,
        snippet: typeof r.content === "string" && r.content.trim() ? r.content.trim() : null,
        published: typeof r.publishedDate === "string" && r.publishedDate ? r.publishedDate : null,
      });
    }
    let kept = filterDomains(results, req.includeDomains, req.excludeDomains);
    if (req.recencyDays) {
      const since = Date.now() - req.recencyDays * 86_400_000;
      // A result with no date is kept: the provider's time_range already narrowed it.
      kept = kept.filter((r) => !r.published || !(Date.parse(r.published) < since));
    }
    return kept.slice(0, req.limit);
  }
}
