/**
 * @module connections/tool-search
 * Ranking tools by what a caller wants done (integration.search `tools`): a lexical score in 0..1,
 * the mean over the query's words (stop words dropped) of the best match of each word against the
 * tool: a whole word of its name or slug 1, a prefix either way (`issue` / `issues`, at least 3
 * letters) 0.7, a word of its description 0.5, inside a description word 0.3. No model, so the same
 * query always ranks the same way.
 */
import type { Tool } from "./toolkits.ts";

const STOP = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "in",
  "on",
  "for",
  "and",
  "or",
  "with",
  "my",
  "me",
  "i",
  "it",
  "by",
  "is",
  "be",
  "this",
  "that",
  "from",
  "at",
  "as",
  "are",
  "will",
  "can",
  "you",
  "your",
]);

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/**
 * The search terms of a text (directory index and queries alike): camelCase and snake_case split,
 * lower case, stop words dropped, a plural made singular (`issues` → `issue`, `repositories` → `repository`), numbers kept short.
 */
export function terms(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)) {
    if (!raw || STOP.has(raw) || raw.length > 30 || (raw.length > 4 && /^[0-9]+$/.test(raw))) continue;
    out.add(
      raw.length > 4 && raw.endsWith("ies")
        ? `${raw.slice(0, -3)}y`
        : raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss")
          ? raw.slice(0, -1)
          : raw,
    );
  }
  return [...out];
}

export function queryWords(query: string): string[] {
  return [...new Set(words(query).filter((w) => !STOP.has(w)))];
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
  const names = [...words(tool.name), ...words(tool.slug)];
  const description = words(tool.description);
  const total = query.reduce((sum, w) => sum + wordScore(w, names, description), 0);
  return Math.round((total / query.length) * 1000) / 1000;
}
