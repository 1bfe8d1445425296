/**
 * @module connections/directory-search
 * The directory's ranking by meaning fused with its lexical one (src/directory.ts BM25). The query's
 * vector comes from the term table shipped with the vectors (src/directory-vectors.ts `embedQuery`:
 * its terms' vectors summed as a tool's are), so a search runs no model and holds no embedder.
 *
 * Fusion is reciprocal rank fusion over the union of both candidate lists: each candidate's rank by
 * BM25 and its rank by cosine (both computed for every candidate), `1/(k + rank)` each, the meaning
 * weighted by `FUSION.meaning`. Rank fusion needs no calibration between a BM25 score and a cosine; k and
 * the weight were tuned on the labelled set (src/directory-queries.json).
 *
 * When the vectors are missing or unreadable, the ranking is lexical and says so (`ranking:
 * "lexical"` and why), once. A query none of whose words is in the term table is ranked by words
 * alone, without a warning: nothing is broken.
 */
import { Lru } from "@gantry/kit";
import { DirectoryVectors } from "./directory-vectors.ts";

export type Ranking = "fused" | "lexical";

/** What the fusion needs of the lexical index (src/directory.ts `Directory`). */
export interface LexicalIndex {
  searchTools(query: string, limit: number): { id: number; toolkit: string; name: string; score: number }[];
  searchToolkits(query: string): { id: number; slug: string; score: number }[];
  toolRef(id: number): { toolkit: string; name: string; kit: number };
  toolkitSlug(kit: number): string;
  /** The ids of a toolkit's tools by name (empty for a toolkit not in the directory). */
  toolIdsOf(slug: string): Map<string, number>;
}

/**
 * Rank fusion's constant, the meaning's weight against BM25's, how much of its toolkit's cosine a
 * tool's meaning gets ("… on github" names the toolkit) and of its nearest tool's a toolkit's, and
 * the cosine's share of a tool's score within one toolkit (the rest: src/tool-search.ts's word score):
 * tuned on the labelled set (scripts/bench-directory.ts prints the recall they give).
 */
export const FUSION = { k: 5, meaning: 1, kitShare: 0.3, toolShare: 1, within: 0.3 };
/** Candidates from each side. */
const DEPTH = 200;

export interface FusedTools {
  ranking: Ranking;
  /** Why the ranking is lexical, the first time it is. */
  warning?: string;
  tools: { toolkit: string; name: string; score: number }[];
}

export interface FusedToolkits {
  ranking: Ranking;
  warning?: string;
  toolkits: { slug: string; score: number }[];
}

export interface FusedWithin {
  ranking: Ranking;
  warning?: string;
  /** Names, best first, with a score in 0..1 (0.7 × the word score + 0.3 × the cosine). */
  tools: { name: string; score: number }[];
}

/** Tools of a toolkit that share no word with the query are kept when this near by meaning. */
const NEAR = 0.35;
/** …and at most this many of them. */
const NEAR_MAX = 10;

/** What a query's vector finds in a scan of the whole directory. */
interface Near {
  /** Every toolkit's cosine, by toolkit id. */
  kitCos: Float32Array;
  /** The DEPTH nearest tools: [tool id, cosine]. */
  tools: [number, number][];
}

export class DirectorySearch {
  private readonly lexical: LexicalIndex;
  private readonly vectors: DirectoryVectors;
  /** By query: a caller often asks for the toolkits and the tools of one query, and the scan is most of a search's CPU. */
  private readonly near = new Lru<string, Near>(64);
  private warned = false;

  constructor(artifact: string, lexical: LexicalIndex) {
    this.lexical = lexical;
    this.vectors = new DirectoryVectors(artifact);
  }

  /** The query's vector, or null (and why, once) when search by meaning is unavailable. */
  private embed(query: string): { q: Float32Array | null; warning?: string } {
    if (!this.vectors.built)
      return this.lexicalOnly(
        "the directory's vectors are not built (node services/connections/scripts/build-directory-vectors.ts)",
      );
    try {
      return { q: this.vectors.embedQuery(query) };
    } catch (err) {
      return this.lexicalOnly(`the directory's vectors cannot be read (${(err as Error).message})`);
    }
  }

  private nearOf(query: string, q: Float32Array): Near {
    const key = query.trim().toLowerCase();
    const hit = this.near.get(key);
    if (hit) return hit;
    const near = { kitCos: this.vectors.toolkitSimilarity(q), tools: this.vectors.nearestTools(q, DEPTH) };
    this.near.set(key, near);
    return near;
  }

  private lexicalOnly(why: string): { q: null; warning?: string } {
    if (this.warned) return { q: null };
    this.warned = true;
    return { q: null, warning: `directory search is lexical only: ${why}` };
  }

  tools(query: string, limit: number): FusedTools {
    const lexical = this.lexical.searchTools(query, Math.max(limit, DEPTH));
    const { q, warning } = this.embed(query);
    if (!q) return { ranking: "lexical", ...(warning ? { warning } : {}), tools: lexical.slice(0, limit) };
    const { kitCos, tools: nearest } = this.nearOf(query, q);
    const ids = new Set<number>(lexical.map((r) => r.id));
    for (const [id] of nearest) ids.add(id);
    const cos = this.vectors.similarity(q, [...ids]);
    const meaning = [...ids].map((id, i) => {
      const kit = this.lexical.toolRef(id).kit;
      return { id, score: (cos[i] as number) + FUSION.kitShare * (kitCos[kit] as number) };
    });
    const fused = fuse(
      lexical.map((r) => r.id),
      meaning.sort((a, b) => b.score - a.score || a.id - b.id).map((r) => r.id),
    );
    return {
      ranking: "fused",
      tools: fused.slice(0, limit).map(({ id, score }) => {
        const ref = this.lexical.toolRef(id);
        return { toolkit: ref.toolkit, name: ref.name, score };
      }),
    };
  }

  toolkits(query: string): FusedToolkits {
    const lexical = this.lexical.searchToolkits(query);
    const { q, warning } = this.embed(query);
    if (!q)
      return {
        ranking: "lexical",
        ...(warning ? { warning } : {}),
        toolkits: lexical.map(({ slug, score }) => ({ slug, score })),
      };
    const { kitCos, tools: nearest } = this.nearOf(query, q);
    // A toolkit is also as near as its nearest tool (Twilio's description never says "text message").
    const best = new Map<number, number>();
    for (const [id, c] of nearest) {
      const kit = this.lexical.toolRef(id).kit;
      best.set(kit, Math.max(best.get(kit) ?? -1, c));
    }
    const meaning = [...kitCos.keys()]
      .map((kit) => ({ id: kit, score: (kitCos[kit] as number) + FUSION.toolShare * Math.max(0, best.get(kit) ?? 0) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, DEPTH);
    const fused = fuse(
      lexical.map((r) => r.id),
      meaning.map((r) => r.id),
    );
    return {
      ranking: "fused",
      toolkits: fused.map(({ id, score }) => ({ slug: this.lexical.toolkitSlug(id), score })),
    };
  }

  /**
   * Tools of one directory toolkit for a query: those with a lexical score (`lexical`, from
   * src/tool-search.ts, > 0) and the few nearest by meaning, ranked by fusion. Lexical only when
   * the toolkit is not the directory's or meaning is unavailable.
   */
  within(slug: string, query: string, lexical: Map<string, number>): FusedWithin {
    const byLexical = [...lexical]
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([name]) => name);
    const ids = this.lexical.toolIdsOf(slug);
    const { q, warning } = ids.size ? this.embed(query) : { q: null };
    if (!q)
      return {
        ranking: "lexical",
        ...(warning ? { warning } : {}),
        tools: byLexical.map((name) => ({ name, score: lexical.get(name) ?? 0 })),
      };
    const names = [...lexical.keys()].filter((n) => ids.has(n));
    const cos = this.vectors.similarity(
      q,
      names.map((n) => ids.get(n) as number),
    );
    const byMeaning = names
      .map((name, i) => ({ name, cos: cos[i] as number }))
      .sort((a, b) => b.cos - a.cos || a.name.localeCompare(b.name));
    const lexicalSet = new Set(byLexical);
    const near = byMeaning.filter((r) => !lexicalSet.has(r.name) && r.cos >= NEAR).slice(0, NEAR_MAX);
    const cosOf = new Map(byMeaning.map((r) => [r.name, r.cos]));
    // A blend, not rank fusion: within one toolkit many tools tie on words ("riddle"), and a rank
    // among ties would let meaning reorder what the words already decide.
    const blended = [...byLexical, ...near.map((r) => r.name)].map((name) => ({
      name,
      score:
        Math.round(
          ((1 - FUSION.within) * (lexical.get(name) ?? 0) + FUSION.within * Math.max(0, cosOf.get(name) ?? 0)) * 1000,
        ) / 1000,
    }));
    return {
      ranking: "fused",
      tools: blended.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)),
    };
  }
}

/** Reciprocal rank fusion of two rankings (ids, best first), best first. */
function fuse(lexical: number[], meaning: number[]): { id: number; score: number }[] {
  const score = new Map<number, number>();
  lexical.forEach((id, r) => {
    score.set(id, 1 / (FUSION.k + r + 1));
  });
  meaning.forEach((id, r) => {
    score.set(id, (score.get(id) ?? 0) + FUSION.meaning / (FUSION.k + r + 1));
  });
  return [...score]
    .map(([id, s]) => ({ id, score: Math.round(s * 1e6) / 1e6 }))
    .sort((a, b) => b.score - a.score || a.id - b.id);
}
