/**
 * @module connections/tool-meaning
 * integration.search's re-ranking of one connection's tools by the sentence model itself (kit
 * `SentenceModel`, `use-lite-512-v1`): the query and each candidate tool's text embedded, their
 * cosine blended with the ranking by words (src/tool-search.ts, fused with the term-table vectors
 * for a directory toolkit). A sum of word vectors cannot read "give a customer their money back";
 * the model reads whole sentences, and within one toolkit the candidates are few enough to embed.
 *
 * - The model re-orders, it does not add: the candidates are the first {@link TOP_TOOLS} of the
 *   ranking by words (for a directory toolkit that ranking already holds the few tools nearest by
 *   the term vectors), so a first search of an 845-tool toolkit embeds 30 texts, not 845. This
 *   model's cosine does not tell an unrelated tool from a related one by any bar ("create a github
 *   issue" meets openai's `createFile` at 0.66, "refund a payment" its `deleteFile` at 0.50), so a
 *   tool no word found is not added; on both labelled sets no hit needed one (nor more than 20 candidates).
 * - A tool's text: its name split into words and its description's first sentence (≤ 200
 *   characters); on the labelled set that read better than the name alone (45 against 43 of 51).
 * - Vectors are cached per tool version (`toolkit.name@version`, whose text never changes) as int8
 *   in a per-process LRU: derived data, so N replicas each fill their own and none depends on another.
 * - The model runs in a child process ended after {@link IDLE_MS} without a call, so an idle service
 *   holds no model; its memory goes back to the system when it ends.
 * - When the model cannot load (its package missing, a load timeout) the ranking by words is
 *   returned as it was, said once in the log, and the model is not tried again for {@link RETRY_MS};
 *   when it is slower than {@link BUDGET_MS} (starting, or a cold toolkit), the ranking by words too.
 */
import { GantryError, Lru, type Logger } from "@gantry/kit";
import { SENTENCE_MODEL_DIMENSIONS, SentenceModel } from "@gantry/kit/sentence-model.ts";
import { quantise } from "./directory-vectors.ts";
import { plainText } from "./search-terms.ts";
import { queryWords, toolScores } from "./tool-search.ts";
import type { Tool, ToolkitDirectory } from "./toolkits.ts";

/**
 * The first this many tools by words are re-ranked; the rest keep their order after them. 50, 100 or
 * every tool words found each lose a labelled query (more tools sharing a word to outrank the right
 * one) and cost a cold search one model call per candidate (services/connections/README.md).
 */
export const TOP_TOOLS = 30;
/** The model's cosine's share of a tool's score (the rest: its score by words). 0.4 ties it on the labelled and held-out sets. */
export const MODEL_SHARE = 0.5;
/**
 * How long a search waits for the model (a first search starts its process and loads it: 1–10 s on a
 * loaded machine; a cold toolkit, 15–90 ms a tool). Past it the search answers by words, and the
 * tools' vectors still land in the cache for the next one.
 */
const BUDGET_MS = 2000;
const IDLE_MS = 5 * 60_000;
const RETRY_MS = 5 * 60_000;
/** Tool vectors kept (512 bytes and a scale each: about 5 MiB). */
const CACHED_TOOLS = 8192;
const D = SENTENCE_MODEL_DIMENSIONS;

/** What the model reads of a tool: `PostCustomersCustomerCards` is "post customers customer cards". */
export function toolText(tool: Pick<Tool, "name" | "description">): string {
  const name = tool.name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[^A-Za-z0-9]+/g, " ")
    .trim()
    .toLowerCase();
  const description = plainText(tool.description).replace(/\s+/g, " ").trim();
  const end = description.search(/[.!?] /);
  return `${name}. ${(end >= 0 ? description.slice(0, end + 1) : description).slice(0, 200)}`;
}

interface Coded {
  codes: Int8Array;
  scale: number;
}

export interface Ranked {
  name: string;
  score: number;
}

/**
 * integration.search's ranking of one connection's `tools` for a query, best first: by words
 * (src/tool-search.ts `toolScores`, each word weighted by how few of these tools it meets), fused with the term vectors when `directory` holds the toolkit (src/directory-search.ts
 * `within`), then re-ranked by `meaning` when there is one.
 */
export async function rankConnectionTools(opts: {
  toolkit: string;
  query: string;
  tools: Tool[];
  directory: Pick<ToolkitDirectory, "rankWithin"> | null;
  meaning: ToolMeaning | null;
  warn: (message: string) => void;
}): Promise<Ranked[]> {
  const words = toolScores(opts.tools, queryWords(opts.query));
  let ranked: Ranked[];
  if (opts.directory) {
    const within = opts.directory.rankWithin(opts.toolkit, opts.query, words);
    if (within.warning) opts.warn(within.warning);
    ranked = within.tools;
  } else {
    ranked = [...words]
      .filter(([, score]) => score > 0)
      .map(([name, score]) => ({ name, score }))
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  }
  return opts.meaning ? opts.meaning.rerank(opts.toolkit, opts.query, opts.tools, ranked) : ranked;
}

export class ToolMeaning {
  private readonly model: SentenceModel;
  private readonly vectors = new Lru<string, Coded>(CACHED_TOOLS);
  private readonly log: Logger | undefined;
  /** Tool vectors being embedded, by key: the model's call that will cache them. */
  private readonly embedding = new Map<string, Promise<void>>();
  private readonly budgetMs: number;
  private failedAt = Number.NEGATIVE_INFINITY;

  constructor(opts: { log?: Logger; model?: SentenceModel; budgetMs?: number } = {}) {
    this.log = opts.log;
    this.budgetMs = opts.budgetMs ?? BUDGET_MS;
    this.model =
      opts.model ?? new SentenceModel({ isolation: "process", idleMs: IDLE_MS, name: "connections-tool-meaning" });
  }

  /**
   * `ranked` (a toolkit's tools by words, best first, score 0..1) with its first TOP_TOOLS re-ranked
   * by the model, each scored `(1 - MODEL_SHARE) × words + MODEL_SHARE × cosine`. `ranked` unchanged
   * when the model is unavailable or slower than the budget.
   */
  async rerank(toolkit: string, query: string, tools: Tool[], ranked: Ranked[]): Promise<Ranked[]> {
    if (!query.trim() || ranked.length === 0 || Date.now() - this.failedAt < RETRY_MS) return ranked;
    const byName = new Map(tools.map((t) => [t.name, t]));
    const head = ranked.slice(0, TOP_TOOLS);
    let cos: Map<string, number> | null;
    try {
      cos = await this.cosines(
        toolkit,
        query,
        head.flatMap((r) => byName.get(r.name) ?? []),
      );
    } catch (err) {
      // A load failure (plain Error from IdleWorker) would recur on every search: wait before the next try.
      // A call that failed (GantryError) is this call's: the next search tries again.
      const loading = !(err instanceof GantryError);
      if (loading) this.failedAt = Date.now();
      this.log?.warn(
        `integration.search ranks by words only${loading ? ` for ${RETRY_MS / 60_000} minutes` : " for this call"}: the sentence model is unavailable (${(err as Error).message})`,
      );
      return ranked;
    }
    if (!cos) return ranked;
    const blended = head
      .map(({ name, score }) => ({
        name,
        score: Math.round(((1 - MODEL_SHARE) * score + MODEL_SHARE * Math.max(0, cos.get(name) ?? 0)) * 1000) / 1000,
      }))
      .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
    // The rest scaled alike: every score stays in 0..1, and the rest after the head.
    return [
      ...blended,
      ...ranked
        .slice(TOP_TOOLS)
        .map((r) => ({ name: r.name, score: Math.round((1 - MODEL_SHARE) * r.score * 1000) / 1000 })),
    ];
  }

  /**
   * The query's cosine with each tool's text, by tool name, or null past the budget. Tools neither
   * cached nor being embedded go to the model in one call with the query; that call finishes into
   * the cache even when this search stopped waiting for it.
   */
  private async cosines(toolkit: string, query: string, tools: Tool[]): Promise<Map<string, number> | null> {
    const key = (t: Tool) => `${toolkit}.${t.name}@${t.version}`;
    const missing = tools.filter((t) => !this.vectors.get(key(t)) && !this.embedding.has(key(t)));
    const call = this.model.embed([query, ...missing.map(toolText)]).then(([q, ...fresh]) => {
      missing.forEach((t, i) => {
        const codes = new Int8Array(D);
        this.vectors.set(key(t), { codes, scale: quantise(fresh[i] as Float32Array, codes, 0) });
      });
      return q as Float32Array;
    });
    const done = call.then(
      () => {},
      () => {},
    );
    for (const t of missing) this.embedding.set(key(t), done);
    void done.then(() => {
      for (const t of missing) if (this.embedding.get(key(t)) === done) this.embedding.delete(key(t));
    });
    const others = [...new Set(tools.flatMap((t) => this.embedding.get(key(t)) ?? []))];
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      if (Number.isFinite(this.budgetMs)) timer = setTimeout(() => resolve(null), this.budgetMs);
    });
    try {
      const q = await Promise.race([Promise.all([call, ...others]).then(([v]) => v), late]);
      if (!q) return null;
      const out = new Map<string, number>();
      for (const t of tools) {
        // A tool evicted by this very call's inserts (a toolkit larger than the cache), or whose other
        // call failed, scores by words only.
        const v = this.vectors.get(key(t));
        if (!v) continue;
        let s = 0;
        for (let i = 0; i < D; i++) s += (q[i] as number) * (v.codes[i] as number);
        out.set(t.name, s * v.scale);
      }
      return out;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Tool vectors in the cache (tests, the bench). */
  get cached(): number {
    return this.vectors.size;
  }

  close(): Promise<void> {
    return this.model.close();
  }
}
