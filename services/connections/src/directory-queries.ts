/**
 * @module connections/directory-queries
 * The labelled set of directory searches (./directory-queries.json: a query, the toolkit it means
 * and others that would also do, the tools that answer it; and a held-out set in the same format) and recall@5 of the directory's rankings
 * over it, words only and fused with meaning: what src/directory.test.ts asserts and
 * scripts/bench-directory.ts prints; and the hits of integration.search within each query's own
 * toolkit ({@link withinHits}): what src/directory-search.test.ts asserts and scripts/search-recall.ts prints.
 */
import { readFileSync } from "node:fs";
import type { Directory } from "./directory.ts";
import { rankConnectionTools, type ToolMeaning } from "./tool-meaning.ts";

export interface LabelledQuery {
  query: string;
  toolkit: string;
  alsoToolkits?: string[];
  tools: string[];
}

const FILES = {
  tuned: "./directory-queries.json",
  "held-out": "./directory-queries-held-out.json",
  "held-out-2": "./directory-queries-held-out-2.json",
};

/**
 * The labelled set, or a held-out one: `held-out`, the 15 paraphrases written before integration.search's
 * weights were first tuned on the set (./directory-queries-held-out.json), and `held-out-2`, 10 more
 * written before the synonyms and query words were tuned again: what the tuning was not fitted to.
 */
export function labelledQueries(set: keyof typeof FILES = "tuned"): LabelledQuery[] {
  const file = FILES[set];
  return JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8")) as LabelledQuery[];
}

export const toolkitHit = (q: LabelledQuery, slugs: string[]) =>
  slugs.some((s) => s === q.toolkit || q.alsoToolkits?.includes(s));
export const toolHit = (q: LabelledQuery, ids: string[]) => ids.some((id) => q.tools.includes(id));

/** Recall@5 (0..1) of the directory's lexical and fused rankings, tools and toolkits. */
export function directoryRecall(directory: Directory, labelled: LabelledQuery[]) {
  const hits = { lexicalTools: 0, lexicalKits: 0, fusedTools: 0, fusedKits: 0 };
  const id = (r: { toolkit: string; name: string }) => `${r.toolkit}.${r.name}@1`;
  for (const q of labelled) {
    if (toolHit(q, directory.searchTools(q.query, 5).map(id))) hits.lexicalTools++;
    if (
      toolkitHit(
        q,
        directory
          .searchToolkits(q.query)
          .slice(0, 5)
          .map((r) => r.slug),
      )
    )
      hits.lexicalKits++;
    if (toolHit(q, directory.rankTools(q.query, 5).tools.map(id))) hits.fusedTools++;
    const kits = directory.rankToolkits(q.query).toolkits.slice(0, 5);
    if (
      toolkitHit(
        q,
        kits.map((r) => r.slug),
      )
    )
      hits.fusedKits++;
  }
  const n = Math.max(1, labelled.length);
  return {
    lexicalTools: hits.lexicalTools / n,
    lexicalKits: hits.lexicalKits / n,
    fusedTools: hits.fusedTools / n,
    fusedKits: hits.fusedKits / n,
  };
}

/** integration.search's ranking of a directory connection's tools (src/tool-meaning.ts `rankConnectionTools`), as ids. */
export async function searchWithin(directory: Directory, meaning: ToolMeaning | null, slug: string, query: string) {
  const toolkit = directory.toolkit(slug);
  const ranked = await rankConnectionTools({
    toolkit: slug,
    query,
    tools: [...(toolkit?.latest.values() ?? [])],
    directory,
    meaning,
    warn: () => {},
  });
  return ranked.map((r) => `${slug}.${r.name}@${toolkit?.latest.get(r.name)?.version}`);
}

/**
 * Each query of a labelled set searched within its own toolkit: how many find a labelled tool in
 * the top 5, and the misses (with the best labelled tool's rank, or "-" when not ranked at all).
 */
export async function withinHits(directory: Directory, meaning: ToolMeaning | null, set: LabelledQuery[]) {
  const misses: string[] = [];
  let asked = 0;
  for (const q of set) {
    // The tools the set names in the query's own toolkit (a query whose answer lies elsewhere only,
    // "transcribe audio" naming OpenAI while meaning Google Speech, has none to find there).
    const expected = q.tools.filter((id) => id.startsWith(`${q.toolkit}.`));
    if (!expected.length) continue;
    asked++;
    const ranked = await searchWithin(directory, meaning, q.toolkit, q.query);
    const at = ranked.findIndex((id) => expected.includes(id));
    if (at < 0 || at >= 5)
      misses.push(`${q.query} in ${q.toolkit} (${at < 0 ? "-" : at + 1}) → ${ranked.slice(0, 5).join(", ")}`);
  }
  return { asked, hits: asked - misses.length, misses };
}
