/**
 * @module memory/embed/http
 * Embedding models served over HTTP, spoken to in their own wire formats:
 *
 *  - **OpenAI-compatible** `POST {base}/v1/embeddings` with
 *    `{model, input: [...], dimensions: 768, encoding_format: "float"}` → `{data: [{index, embedding}]}`
 *    (OpenAI, Azure-style gateways, vLLM, LM Studio, llama.cpp server, LiteLLM, …). A base URL that
 *    already ends in `/v1` is not doubled.
 *  - **Ollama** `POST {base}/api/embed` with `{model, input: [...], truncate: true}` →
 *    `{embeddings: [[...]]}` (e.g. `nomic-embed-text`, natively 768 dimensions).
 *
 * Optional query/document prefixes are prepended before embedding; for `nomic-embed-text` they
 * default to the model's own `search_query: ` / `search_document: `. Every vector is checked to have
 * exactly 768 dimensions and is L2-normalised. Failures become `upstream_failed` (unreachable, non-2xx,
 * malformed answer) or `timeout`, with the provider's status in the log, never its body in the response.
 *
 * @example
 * const e = new OpenAIEmbedder({ baseUrl: "http://127.0.0.1:8000", model: "text-embedding-3-small" });
 * const [q] = await e.embed(["which food does Biscuit need"], "query");
 */
import { GantryError } from "@gantry/kit";
import { DIMENSIONS, normalise, type EmbedKind, type Embedder, type Matching } from "./types.ts";

export interface HttpEmbedderOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Prepended to queries / documents. Defaults: nomic-embed-text's prefixes for that model, else none. */
  queryPrefix?: string;
  documentPrefix?: string;
  timeoutMs?: number;
  /** Texts per request. */
  batchSize?: number;
  /** For tests: the fetch to use. */
  fetch?: typeof fetch;
}

function defaultPrefixes(model: string): { query: string; document: string } {
  return /nomic-embed-text/i.test(model)
    ? { query: "search_query: ", document: "search_document: " }
    : { query: "", document: "" };
}

abstract class HttpEmbedder implements Embedder {
  abstract readonly model: string;
  readonly dimensions = DIMENSIONS;
  readonly matching: Matching = "semantic";
  protected readonly opts: Required<Omit<HttpEmbedderOptions, "apiKey">> & { apiKey?: string };
  protected abstract readonly provider: string;

  constructor(opts: HttpEmbedderOptions) {
    const prefixes = defaultPrefixes(opts.model);
    this.opts = {
      timeoutMs: 30_000,
      batchSize: 64,
      fetch: globalThis.fetch,
      ...opts,
      queryPrefix: opts.queryPrefix ?? prefixes.query,
      documentPrefix: opts.documentPrefix ?? prefixes.document,
      baseUrl: withoutTrailingSlashes(opts.baseUrl),
    };
  }

  protected abstract request(texts: string[]): { url: string; body: unknown };
  protected abstract parse(body: unknown, count: number): number[][];

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    const prefix = kind === "query" ? this.opts.queryPrefix : this.opts.documentPrefix;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.opts.batchSize) {
      const batch = texts.slice(i, i + this.opts.batchSize).map((t) => prefix + t);
      for (const v of await this.call(batch)) out.push(v);
    }
    return out;
  }

  private async call(texts: string[]): Promise<Float32Array[]> {
    const { url, body } = this.request(texts);
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    let res: Response;
    try {
      res = await this.opts.fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (err) {
      if ((err as Error).name === "TimeoutError") {
        throw new GantryError(
          "timeout",
          `The embedding provider (${this.provider}) did not answer within ${this.opts.timeoutMs} ms.`,
          { cause: err },
        );
      }
      throw new GantryError("upstream_failed", `The embedding provider (${this.provider}) could not be reached.`, {
        cause: err,
      });
    }
    const raw = await res.text();
    if (!res.ok) {
      throw new GantryError(
        "upstream_failed",
        `The embedding provider (${this.provider}) answered HTTP ${res.status}.`,
        {
          cause: new Error(`${url} → ${res.status}: ${raw.slice(0, 500)}`),
        },
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new GantryError(
        "upstream_failed",
        `The embedding provider (${this.provider}) answered with something that is not JSON.`,
        { cause: err },
      );
    }
    const vectors = this.parse(parsed, texts.length);
    return vectors.map((v) => {
      if (v.length !== this.dimensions) {
        throw new GantryError(
          "upstream_failed",
          `The embedding model ${this.model} returned ${v.length} dimensions; Gantry stores ${this.dimensions}.`,
          {
            reason: "Configure a model (or a `dimensions` setting) that produces 768-dimensional vectors.",
          },
        );
      }
      return normalise(Float32Array.from(v));
    });
  }
}

function isNumberArray(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x));
}

function malformed(provider: string, what: string): GantryError {
  return new GantryError("upstream_failed", `The embedding provider (${provider}) answered without ${what}.`);
}

/** OpenAI-compatible `/v1/embeddings`. Records vectors as `openai:<model>`. */
export class OpenAIEmbedder extends HttpEmbedder {
  readonly model: string;
  protected readonly provider = "openai-compatible";

  constructor(opts: HttpEmbedderOptions) {
    super(opts);
    this.model = `openai:${opts.model}`;
  }

  protected request(texts: string[]) {
    const base = this.opts.baseUrl.endsWith("/v1") ? this.opts.baseUrl : `${this.opts.baseUrl}/v1`;
    return {
      url: `${base}/embeddings`,
      body: { model: this.opts.model, input: texts, dimensions: this.dimensions, encoding_format: "float" },
    };
  }

  protected parse(body: unknown, count: number): number[][] {
    const data = (body as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== count) throw malformed(this.provider, `${count} embeddings in "data"`);
    const out: number[][] = new Array(count);
    for (const [i, item] of data.entries()) {
      const { index, embedding } = item as { index?: unknown; embedding?: unknown };
      const at = typeof index === "number" ? index : i;
      if (!isNumberArray(embedding) || at < 0 || at >= count || out[at])
        throw malformed(this.provider, "a float embedding for every input");
      out[at] = embedding;
    }
    return out;
  }
}

/** Ollama `/api/embed`. Records vectors as `ollama:<model>`. */
export class OllamaEmbedder extends HttpEmbedder {
  readonly model: string;
  protected readonly provider = "ollama";

  constructor(opts: HttpEmbedderOptions) {
    super(opts);
    this.model = `ollama:${opts.model}`;
  }

  protected request(texts: string[]) {
    return { url: `${this.opts.baseUrl}/api/embed`, body: { model: this.opts.model, input: texts, truncate: true } };
  }

  protected parse(body: unknown, count: number): number[][] {
    const embeddings = (body as { embeddings?: unknown }).embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== count || !embeddings.every(isNumberArray)) {
      throw malformed(this.provider, `${count} embeddings in "embeddings"`);
    }
    return embeddings as number[][];
  }
}

/** `url` without the slashes it ends with (a loop: a regex for it either backtracks or needs a lookbehind). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end--;
  return url.slice(0, end);
}
