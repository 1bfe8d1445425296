/**
 * @module content/summarize
 * Extractive, deterministic summaries: sentences found by `Intl.Segmenter` (ICU's sentence rules, so
 * "Dr." and "3.5" do not split), ranked by TextRank (Mihalcea & Tarau 2004: PageRank over a graph
 * whose edge weights are the word overlap of two sentences, normalised by their lengths' logs), the
 * best ones kept within the length budget, returned in input order with their offsets so every
 * sentence can be checked against the input (`text.slice(start, end)`).
 *
 * Budgets (n = sentences in the input):
 * | length | sentences kept |
 * |---|---|
 * | short  | ceil(10% of n), at least 1, at most 3 |
 * | medium | ceil(20% of n), at least 3, at most 7 |
 * | long   | ceil(35% of n), at least 5, at most 15 |
 * never more than n. Ties keep the earlier sentence; the same text always gives the same summary.
 */

export type Length = "short" | "medium" | "long";

const BUDGETS: Record<Length, { ratio: number; min: number; max: number }> = {
  short: { ratio: 0.1, min: 1, max: 3 },
  medium: { ratio: 0.2, min: 3, max: 7 },
  long: { ratio: 0.35, min: 5, max: 15 },
};

const DAMPING = 0.85;
const MAX_ITERATIONS = 100;
const EPSILON = 1e-9;
/** Sentences beyond this many are ranked only by their first-come position (the graph is O(n²)). */
const MAX_GRAPH_SENTENCES = 2000;

// A small English stop list: function words carry no topic, and counting them links every sentence.
const STOP = new Set(
  "a an and are as at be been but by for from had has have he her his i if in into is it its of on or our she so than that the their them then there these they this to was we were what when which who will with you your not no do does did can could would should may might also more most such only over very just about after before between both each other".split(
    " ",
  ),
);

export interface Sentence {
  text: string;
  start: number;
  end: number;
  index: number;
  score: number;
}

export function budget(length: Length, n: number): number {
  const b = BUDGETS[length];
  return Math.min(n, Math.max(b.min, Math.min(b.max, Math.ceil(n * b.ratio))));
}

// ICU's sentence rules split after these (its abbreviation suppressions are not exposed through
// Intl.Segmenter), so a segment ending in one is joined with the next.
const ABBREVIATION =
  /(?:^|[\s(])(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|etc|Inc|Ltd|Co|No|Fig|e\.g|i\.e|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$/;

/** The input's sentences with their offsets (whitespace around each trimmed off). */
export function sentences(text: string): Array<{ text: string; start: number; end: number }> {
  const out: Array<{ text: string; start: number; end: number }> = [];
  let joinNext = false;
  for (const seg of new Intl.Segmenter("en", { granularity: "sentence" }).segment(text)) {
    const lead = seg.segment.length - seg.segment.trimStart().length;
    const body = seg.segment.trim();
    if (!body) continue;
    const start = seg.index + lead;
    const end = start + body.length;
    const last = out.at(-1);
    if (joinNext && last) {
      last.end = end;
      last.text = text.slice(last.start, end);
    } else out.push({ text: body, start, end });
    joinNext = ABBREVIATION.test(body);
  }
  return out;
}

const WORDS = new Intl.Segmenter("en", { granularity: "word" });

function words(sentence: string): Set<string> {
  const out = new Set<string>();
  for (const w of WORDS.segment(sentence.toLowerCase())) {
    if (!w.isWordLike || STOP.has(w.segment)) continue;
    out.add(w.segment.length > 4 ? w.segment.replace(/(?:ies|es|s)$/, "") : w.segment);
  }
  return out;
}

/** TextRank scores, normalised so the best sentence scores 1. */
export function rank(list: string[]): number[] {
  const n = list.length;
  if (n === 0) return [];
  const bags = list.map(words);
  const weights: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = bags[i];
      const b = bags[j];
      if (a.size < 1 || b.size < 1) continue;
      let common = 0;
      for (const w of a) if (b.has(w)) common++;
      if (!common) continue;
      const norm = Math.log(a.size + 1) + Math.log(b.size + 1);
      weights[i][j] = weights[j][i] = common / norm;
    }
  }
  const out = weights.map((row) => row.reduce((s, w) => s + w, 0));
  let scores = new Array<number>(n).fill(1 / n);
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    const next = new Array<number>(n).fill((1 - DAMPING) / n);
    for (let j = 0; j < n; j++) {
      if (out[j] === 0) continue;
      const share = (DAMPING * scores[j]) / out[j];
      for (let i = 0; i < n; i++) if (weights[j][i]) next[i] += share * weights[j][i];
    }
    const delta = next.reduce((s, v, i) => s + Math.abs(v - scores[i]), 0);
    scores = next;
    if (delta < EPSILON) break;
  }
  const max = Math.max(...scores);
  return scores.map((s) => (max > 0 ? Math.round((s / max) * 1e6) / 1e6 : 0));
}

export function summarize(text: string, length: Length) {
  const found = sentences(text);
  const ranked = found.slice(0, MAX_GRAPH_SENTENCES);
  const scores = rank(ranked.map((s) => s.text));
  const keep = budget(length, ranked.length);
  const chosen = ranked
    .map((s, index) => ({ ...s, index, score: scores[index] }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, keep)
    .sort((a, b) => a.index - b.index);
  return {
    summary: chosen.map((s) => s.text).join(" "),
    length,
    method: "extractive" as const,
    model: null,
    sentences: chosen satisfies Sentence[],
    inputChars: text.length,
    inputSentences: found.length,
  };
}
