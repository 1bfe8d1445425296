/**
 * @module memory/embed
 * Picks the embedder from configuration: `EMBEDDER=sentence` (default: use-lite-512-v1, a sentence
 * encoder shipped in an npm package, offline, semantic), `lexical` (lexical-hash-v1, built in, word
 * overlap only), `openai` (OpenAI-compatible `/v1/embeddings`) or `ollama` (`/api/embed`).
 *
 * When the sentence model cannot load, the service falls back to lexical-hash-v1 with a warning
 * rather than not starting: searches then match shared words only, and every search result says so
 * (`model`, `matching: "lexical"`). The re-embed command asks for no fallback: it would otherwise
 * re-embed collections with a model the operator did not choose.
 */
import type { Logger } from "@gantry/kit";
import type { MemoryConfig } from "../config.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";
import { LEXICAL_MODEL, LexicalHashEmbedder } from "./lexical.ts";
import { SENTENCE_MODEL, SentenceEmbedder } from "./sentence.ts";
import type { Embedder } from "./types.ts";

export * from "./types.ts";
export { LexicalHashEmbedder, LEXICAL_MODEL } from "./lexical.ts";
export { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";
export { SentenceEmbedder, SENTENCE_MODEL } from "./sentence.ts";

/** The variables the embedder reads (declared in ../config.ts). */
export type EmbedderConfig = Pick<
  MemoryConfig,
  | "EMBEDDER"
  | "EMBEDDER_IDLE_MS"
  | "EMBEDDING_URL"
  | "EMBEDDING_MODEL"
  | "EMBEDDING_API_KEY"
  | "EMBEDDING_QUERY_PREFIX"
  | "EMBEDDING_DOCUMENT_PREFIX"
  | "EMBEDDING_TIMEOUT_MS"
>;

export interface LoadEmbedderOptions {
  log: Pick<Logger, "warn">;
  /** Fall back to lexical-hash-v1 when the sentence model cannot load (default true). */
  fallback?: boolean;
  /** For tests: how the sentence model is loaded. */
  loadSentence?: () => Promise<Embedder>;
}

export async function loadEmbedder(c: EmbedderConfig, opts: LoadEmbedderOptions): Promise<Embedder> {
  if (c.EMBEDDER === "lexical") return new LexicalHashEmbedder();
  if (c.EMBEDDER === "sentence") {
    try {
      return await (opts.loadSentence ?? (() => SentenceEmbedder.load({ idleMs: c.EMBEDDER_IDLE_MS })))();
    } catch (err) {
      if (opts.fallback === false) throw err;
      opts.log.warn(
        { err: err instanceof Error ? err.message : String(err), wanted: SENTENCE_MODEL, using: LEXICAL_MODEL },
        `EMBEDDER=sentence: the ${SENTENCE_MODEL} model could not load; falling back to ${LEXICAL_MODEL}, which matches shared words only, not meaning (search results say matching: "lexical"; collections saved with ${SENTENCE_MODEL} answer 409 until the model loads again)`,
      );
      return new LexicalHashEmbedder();
    }
  }
  if (!c.EMBEDDING_URL || !c.EMBEDDING_MODEL) {
    throw new Error(`EMBEDDER=${c.EMBEDDER} needs EMBEDDING_URL and EMBEDDING_MODEL`);
  }
  const http = {
    baseUrl: c.EMBEDDING_URL,
    model: c.EMBEDDING_MODEL,
    apiKey: c.EMBEDDING_API_KEY,
    queryPrefix: c.EMBEDDING_QUERY_PREFIX,
    documentPrefix: c.EMBEDDING_DOCUMENT_PREFIX,
    timeoutMs: c.EMBEDDING_TIMEOUT_MS,
  };
  return c.EMBEDDER === "openai" ? new OpenAIEmbedder(http) : new OllamaEmbedder(http);
}
