/**
 * @module connections/tool-search
 * Ranking tools by what a caller wants done (integration.search `tools`): a lexical score in 0..1,
 * the mean over the query's terms (src/search-terms.ts `terms`: stop words dropped, camelCase split, plurals folded) of
 * the best match of each against the tool's terms: a whole word of its name or slug 1, a prefix either way that adds only an
 * ending (`issue` / `issues`, at least 3 letters; {@link ENDINGS}) 0.7, a word of its description (its HTML and Markdown dropped: src/search-terms.ts `plainText`)
 * 0.5, inside a description word 0.3; a synonym's match
 * (src/search-terms.ts `SYNONYMS`, shared with the directory's BM25) counts 0.6 of that, so "post a tweet" meets
 * `createTweet`. Within one toolkit (`toolScores`, what integration.search ranks) the mean is
 * weighted by how few of the toolkit's tools each term meets, a word none of its tools is named by
 * meets the synonym they are named by in full, and a share of the score is how much of the tool's
 * name the query says ({@link NAME_COVER}). No model, so the same query always ranks the same way.
 */
import { plainText, queryTerms, SYNONYMS, terms } from "./search-terms.ts";
import type { Tool } from "./toolkits.ts";

/** A query word met through a synonym scores this share of what the word itself would. */
const SYNONYM_SHARE = 0.6;

/** A query's words as a tool's are scored against: its `queryTerms`, so `customers` meets `PostCustomers`. */
export function queryWords(query: string): string[] {
  return queryTerms(query);
}

/**
 * What a word may add to a shorter one and still be it (`issue`/`issues`, `follow`/`following`,
 * `subscribe`/`subscriber`): endings, so `repo` is no prefix of `report` nor `cat` of `catalog`.
 */
const ENDINGS =
  /^(?:s|es|e|d|ed|ing|er|ers|or|ors|ion|ions|ation|ations|ment|ments|al|y|ies|ly|able|ity|ive|ist|ists|ship|ness|age|ance|ence|ize|ise|ization)?$/;

/** Whether `b` is `a` with an ending added ({@link ENDINGS}; `a` at least 3 letters). */
function prefix(a: string, b: string): boolean {
  return a.length >= 3 && b.startsWith(a) && ENDINGS.test(b.slice(a.length));
}

function wordScore(word: string, names: string[], description: string[]): number {
  if (names.includes(word)) return 1;
  if (names.some((n) => prefix(word, n) || prefix(n, word))) return 0.7;
  if (description.includes(word)) return 0.5;
  if (description.some((d) => prefix(word, d) || prefix(d, word) || (word.length >= 4 && d.includes(word)))) return 0.3;
  return 0;
}

interface ToolTerms {
  names: string[];
  /** The name's own terms, what {@link NAME_COVER} counts: a slug adds the toolkit's (`github-com-api-github-com.issues_create`), the same for all its tools. */
  nameOnly: string[];
  description: string[];
}

/** By tool object: a toolkit's tools stay loaded between searches, and their terms never change. */
const termsOf = new WeakMap<object, ToolTerms>();

/** What a tool's scores are computed over: its name's and slug's terms, its description's. */
function toolTerms(tool: Pick<Tool, "name" | "slug" | "description">): ToolTerms {
  const known = termsOf.get(tool);
  if (known) return known;
  // Terms, not bare words: `PostCustomers` is `post` and `customer` to a query for a customer.
  const nameOnly = terms(tool.name);
  const made = { names: [...nameOnly, ...terms(tool.slug)], nameOnly, description: terms(plainText(tool.description)) };
  termsOf.set(tool, made);
  return made;
}

/** One query word's score against a tool: its own match, or a synonym's at `share` ({@link SYNONYM_SHARE}). */
function termScore(w: string, names: string[], description: string[], share = SYNONYM_SHARE): number {
  // A loop, not a spread of a mapped array: this runs for every tool and query word of a search.
  let best = wordScore(w, names, description);
  for (const s of SYNONYMS[w] ?? []) if (best < share) best = Math.max(best, share * wordScore(s, names, description));
  return best;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Within a toolkit, the share of a tool's score that is how much of its name the query says (the
 * share of its name's terms, a repeated term counted each time, that a query word or its synonym
 * meets). An API document names an operation by a verb and what it acts on, and every further word
 * narrows it (`issues_create`, `issues_create-comment`, `issues_create-milestone`; `CreateMessage`,
 * `CreateMessageFeedback`):
 * "report a bug" meets all three alike by its words, and the one whose every name word it says is
 * the operation asked, the others a narrower one it did not ask for. What BM25's length
 * normalisation does for a field, for the name.
 */
const NAME_COVER = 0.08;

/** The tool's relevance to the query words (0..1, rounded to 3 places), every word weighing alike. */
export function toolScore(tool: Pick<Tool, "name" | "slug" | "description">, query: string[]): number {
  if (query.length === 0) return 0;
  const { names, description } = toolTerms(tool);
  return round3(query.reduce((sum, w) => sum + termScore(w, names, description), 0) / query.length);
}

/**
 * Every tool's relevance to the query words within one toolkit (0..1, by name): {@link toolScore}'s
 * mean, each word weighted by how few of the toolkit's tools it meets (`met` of `n`, a synonym's
 * match included), `sqrt(log(1 + n / (1 + met)))`: an idf, as BM25 weighs a term. A word that half a
 * toolkit's tools say ("customer" in Stripe, "repository" in GitHub, "phone" in Twilio) tells them
 * apart less than one a few say ("refund", "issue", "message"), so "give a customer their money
 * back" ranks the refund tools above the customer tools. Softened by the root: the full idf lets a
 * word no tool says outweigh those some do, and lost a held-out query ("end a customer's recurring
 * plan") where the root loses none (services/connections/README.md, Tool discovery). That mean is
 * `1 - NAME_COVER` of the score, the share of the tool's name words the query meets the rest.
 */
export function toolScores(tools: Pick<Tool, "name" | "slug" | "description">[], query: string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (query.length === 0) {
    for (const t of tools) out.set(t.name, 0);
    return out;
  }
  const toolWords = tools.map(toolTerms);
  // A word no tool of the toolkit is named by, and a synonym of which some are, is read as that
  // synonym in full: the share keeps a tool the word names above one its synonym names, and here
  // there is none to keep above ("text" in Twilio, whose tools are named "message"; "bug" in
  // GitHub, named "issue").
  const named = (w: string) => toolWords.some(({ names }) => names.includes(w));
  const unnamed = query.map((w) => !named(w) && (SYNONYMS[w] ?? []).some(named));
  const scores = toolWords.map(({ names, description }) =>
    query.map((w, i) => termScore(w, names, description, unnamed[i] ? 1 : SYNONYM_SHARE)),
  );
  // Whether the query meets a name word (as a name term: itself, a synonym, a prefix either way), once
  // per distinct word: a toolkit's names share most of theirs.
  const forms = [...new Set(query.flatMap((w) => [w, ...(SYNONYMS[w] ?? [])]))];
  const meets = new Map<string, boolean>();
  const nameMet = (n: string) => {
    const known = meets.get(n);
    if (known !== undefined) return known;
    const m = forms.some((f) => f === n || prefix(f, n) || prefix(n, f));
    meets.set(n, m);
    return m;
  };
  const weights = query.map((_, i) => {
    const met = scores.reduce((n, s) => n + ((s[i] as number) > 0 ? 1 : 0), 0);
    return Math.sqrt(Math.log(1 + tools.length / (1 + met)));
  });
  const total = weights.reduce((a, b) => a + b, 0);
  tools.forEach((t, j) => {
    const s = scores[j] as number[];
    const mean = total > 0 ? s.reduce((sum, x, i) => sum + x * (weights[i] as number), 0) / total : 0;
    const { nameOnly } = toolWords[j] as ToolTerms;
    let said = 0;
    if (mean > 0) for (const n of nameOnly) if (nameMet(n)) said++;
    const cover = said / Math.max(1, nameOnly.length);
    out.set(t.name, round3((1 - NAME_COVER) * mean + NAME_COVER * cover));
  });
  return out;
}
