/**
 * @module connections/tool-search
 * Ranking tools by what a caller wants done (integration.search `tools`): a lexical score in 0..1,
 * the mean over the query's terms (src/search-terms.ts `terms`: stop words dropped, camelCase split, plurals folded) of
 * the best match of each against the tool's terms: a whole word of its name or slug 1, a prefix either way (`issue` / `issues`, at least 3
 * letters) 0.7, a word of its description 0.5, inside a description word 0.3; a synonym's match
 * (src/search-terms.ts `SYNONYMS`, shared with the directory's BM25) counts 0.6 of that, so "post a tweet" meets
 * `createTweet`. No model, so the same query always ranks the same way.
 */
import { queryTerms, SYNONYMS, terms } from "./search-terms.ts";
import type { Tool } from "./toolkits.ts";

/** A query word met through a synonym scores this share of what the word itself would. */
const SYNONYM_SHARE = 0.6;

/** A query's words as a tool's are scored against: its `queryTerms`, so `customers` meets `PostCustomers`. */
export function queryWords(query: string): string[] {
  return queryTerms(query);
}

function wordScore(word: string, names: string[], description: string[]): number {
  if (names.includes(word)) return 1;
  const prefix = (a: string, b: string) => a.length >= 3 && b.startsWith(a);
  if (names.some((n) => prefix(word, n) || prefix(n, word))) return 0.7;
  if (description.includes(word)) return 0.5;
  if (description.some((d) => prefix(word, d) || prefix(d, word) || (word.length >= 4 && d.includes(word)))) return 0.3;
  return 0;
}

/** The tool's relevance to the query words (0..1, rounded to 3 places). */
export function toolScore(tool: Pick<Tool, "name" | "slug" | "description">, query: string[]): number {
  if (query.length === 0) return 0;
  // Terms, not bare words: `PostCustomers` is `post` and `customer` to a query for a customer.
  const names = [...terms(tool.name), ...terms(tool.slug)];
  const description = terms(tool.description);
  const total = query.reduce(
    (sum, w) =>
      sum +
      Math.max(
        wordScore(w, names, description),
        ...(SYNONYMS[w] ?? []).map((s) => SYNONYM_SHARE * wordScore(s, names, description)),
      ),
    0,
  );
  return Math.round((total / query.length) * 1000) / 1000;
}
