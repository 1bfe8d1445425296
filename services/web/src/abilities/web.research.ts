/**
 * @module web/abilities/web.research
 * web.research: search (SearXNG JSON API), read the top results, and return the passages that best
 * answer the question — each a verbatim quote with its URL, character offsets into the page's
 * extracted text and that text's SHA-256, so anyone can re-fetch and check it. Findings are ranked
 * passages, not generated prose (no model is involved by default).
 */
import { ability } from "../context.ts";
import { research } from "../research.ts";

const MAX_FINDINGS = 10;
/** At most this many findings quote the same source, so one page cannot crowd out the rest. */
const PER_SOURCE = 3;

export default ability("web.research", async (input, _call, ctx) => {
  const started = performance.now();
  const run = await research(ctx, {
    query: input.query,
    limit: input.maxSources,
    recencyDays: input.recencyDays,
    includeDomains: input.includeDomains,
    excludeDomains: input.excludeDomains,
    locale: input.locale,
  });
  const perSource = new Map<number, number>();
  const findings = [];
  for (const p of run.ranked) {
    if (findings.length >= MAX_FINDINGS) break;
    const used = perSource.get(p.doc) ?? 0;
    if (used >= PER_SOURCE) continue;
    perSource.set(p.doc, used + 1);
    const s = run.sources[p.doc];
    const page = s.page;
    if (!page || !s.contentSha256) continue;
    findings.push({
      text: p.text,
      score: p.score,
      citations: [
        {
          url: page.finalUrl,
          title: page.extracted.title ?? s.result.title,
          quote: p.text,
          start: p.start,
          end: p.end,
          contentSha256: s.contentSha256,
          fetched: page.fetched.toISOString(),
        },
      ],
    });
  }
  return {
    query: input.query,
    findings,
    sources: run.sources.map((s, i) => ({
      url: s.result.url,
      finalUrl: s.page?.finalUrl ?? null,
      title: s.page?.extracted.title ?? s.result.title,
      published: s.page?.extracted.published ?? s.result.published,
      status: s.page?.status ?? null,
      contentSha256: s.contentSha256,
      fetched: s.page ? s.page.fetched.toISOString() : null,
      cited: perSource.has(i),
      error: s.error,
    })),
    searchProvider: run.provider,
    searched: run.searched.toISOString(),
    durationMs: Math.round(performance.now() - started),
  };
});
