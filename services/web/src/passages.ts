/**
 * @module web/passages
 * Passage ranking for research and verify: a page's extracted text is cut into passages (its lines —
 * paragraphs, headings, list items — long ones split at sentence ends, short neighbours joined), each
 * with its exact offsets in the text, and scored against the question with BM25 over the passages of
 * every page read together (so a term rare across sources weighs more). Scores are scaled to 0..1 by
 * the best passage. Deterministic: the same pages and question give the same findings.
 */

export interface Passage {
  /** Index of the document (page) it comes from. */
  doc: number;
  start: number;
  end: number;
  text: string;
}

export interface Ranked extends Passage {
  score: number;
}

const MIN_CHARS = 60;
const MAX_CHARS = 600;

const STOP = new Set(
  "a an and are as at be by for from has have how in is it its of on or that the this to was were what when where which who why will with does do did can".split(
    " ",
  ),
);

export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !STOP.has(t) && t.length > 1);
}

/** Splits a page's text into passages with their offsets (`text.slice(start, end) === passage.text`). */
export function passagesOf(text: string, doc: number): Passage[] {
  const spans: [number, number][] = [];
  const lineRe = /[^\n]+/g;
  for (let m = lineRe.exec(text); m; m = lineRe.exec(text)) {
    const start = m.index;
    const line = m[0];
    if (line.length <= MAX_CHARS) {
      spans.push([start, start + line.length]);
      continue;
    }
    // Long lines: cut after sentence ends, keeping pieces under MAX_CHARS where possible.
    let from = 0;
    const sentRe = /[.!?](?=\s)/g;
    let lastCut = 0;
    for (let s = sentRe.exec(line); s; s = sentRe.exec(line)) {
      const end = s.index + 1;
      if (end - from > MAX_CHARS && lastCut > from) {
        spans.push([start + from, start + lastCut]);
        from = lastCut + 1;
      }
      lastCut = end;
    }
    spans.push([start + from, start + line.length]);
  }
  // Join short neighbours (a heading with its paragraph reads better as one quote).
  const merged: [number, number][] = [];
  for (const [s, e] of spans) {
    const prev = merged.at(-1);
    if (prev && prev[1] - prev[0] < MIN_CHARS && e - prev[0] <= MAX_CHARS) prev[1] = e;
    else merged.push([s, e]);
  }
  return merged
    .map(([s, e]) => {
      // Trim whitespace inside the span but keep exact offsets.
      while (s < e && /\s/.test(text[s])) s++;
      while (e > s && /\s/.test(text[e - 1])) e--;
      return { doc, start: s, end: e, text: text.slice(s, e) };
    })
    .filter((p) => p.text.length > 0);
}

/** Ranks passages against the query with BM25 (k1 1.2, b 0.75); scores scaled to 0..1; zero-score ones dropped. */
export function rank(query: string, passages: Passage[]): Ranked[] {
  const q = [...new Set(terms(query))];
  if (q.length === 0 || passages.length === 0) return [];
  const docs = passages.map((p) => terms(p.text));
  const avg = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = docs.length;
  const raw = docs.map((d) => {
    const tf = new Map<string, number>();
    for (const t of d) tf.set(t, (tf.get(t) ?? 0) + 1);
    let s = 0;
    for (const t of q) {
      const f = tf.get(t) ?? 0;
      if (!f) continue;
      const idf = Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
      s += (idf * f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * d.length) / avg));
    }
    return s;
  });
  const best = Math.max(...raw);
  if (best <= 0) return [];
  return passages
    .map((p, i) => ({ ...p, score: Math.round((raw[i] / best) * 1000) / 1000 }))
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score || a.doc - b.doc || a.start - b.start);
}
