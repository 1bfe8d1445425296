/**
 * @module web/abilities/research.verify
 * research.verify: dated observations — verbatim passages with URL, offsets, content hash and fetch
 * time — from current sources for a statement or question. It never says whether the statement is
 * true: weighing the observations is the caller's job.
 *
 * The `capture` variant (src/capture.ts) captures registered official pages, stores each capture per
 * tenant and compares it with the tenant's previous capture of the page.
 */
import type { OutputOf } from "@gantry/proto/catalogue";
import { capturePages } from "../capture.ts";
import { ability } from "../context.ts";
import { research } from "../research.ts";

const MAX_OBSERVATIONS = 10;
const PER_SOURCE = 3;

type SearchInput = { action?: "search"; query: string; maxSources?: number; recencyDays?: number };
type CaptureInput = { action: "capture"; urls: string[]; focus?: string };

export default ability("research.verify", async (raw, call, ctx) => {
  // The catalogue's input is a oneOf the schema types cannot narrow; it arrives validated.
  const input = raw as SearchInput | CaptureInput;
  if (input.action === "capture") return capturePages(ctx, call.tenant, call.baseUrl, input.urls, input.focus);
  const search = input;
  const run = await research(ctx, {
    query: search.query,
    limit: search.maxSources ?? 5,
    recencyDays: search.recencyDays,
  });
  const perSource = new Map<number, number>();
  const observations = [];
  for (const p of run.ranked) {
    if (observations.length >= MAX_OBSERVATIONS) break;
    const used = perSource.get(p.doc) ?? 0;
    if (used >= PER_SOURCE) continue;
    const s = run.sources[p.doc];
    if (!s.page || !s.contentSha256) continue;
    perSource.set(p.doc, used + 1);
    observations.push({
      url: s.page.finalUrl,
      title: s.page.extracted.title ?? s.result.title,
      quote: p.text,
      start: p.start,
      end: p.end,
      contentSha256: s.contentSha256,
      relevance: p.score,
      published: s.page.extracted.published ?? s.result.published,
      fetched: s.page.fetched.toISOString(),
    });
  }
  const found: Extract<OutputOf<"research.verify">, { action: "search" }> = {
    action: "search",
    query: search.query,
    observations,
    searchProvider: run.provider,
    searched: run.searched.toISOString(),
  };
  return found;
});
