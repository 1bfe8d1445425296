/**
 * @module memory/embed
 * Picks the embedder from configuration: `EMBEDDER=lexical` (default, built in), `openai`
 * (OpenAI-compatible `/v1/embeddings`) or `ollama` (`/api/embed`).
 */
import type { MemoryConfig } from "../config.ts";
import { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";
import { LexicalHashEmbedder } from "./lexical.ts";
import type { Embedder } from "./types.ts";

export * from "./types.ts";
export { LexicalHashEmbedder, LEXICAL_MODEL } from "./lexical.ts";
export { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";

/** The variables the embedder reads (declared in ../config.ts). */
export type EmbedderConfig = Pick<
  MemoryConfig,
  | "EMBEDDER"
  | "EMBEDDING_URL"
  | "EMBEDDING_MODEL"
  | "EMBEDDING_API_KEY"
  | "EMBEDDING_QUERY_PREFIX"
  | "EMBEDDING_DOCUMENT_PREFIX"
  | "EMBEDDING_TIMEOUT_MS"
>;

export function createEmbedder(c: EmbedderConfig): Embedder {
  if (c.EMBEDDER === "lexical") return new LexicalHashEmbedder();
  if (!c.EMBEDDING_URL || !c.EMBEDDING_MODEL) {
    throw new Error(`EMBEDDER=${c.EMBEDDER} needs EMBEDDING_URL and EMBEDDING_MODEL`);
  }
  const opts = {
    baseUrl: c.EMBEDDING_URL,
    model: c.EMBEDDING_MODEL,
    apiKey: c.EMBEDDING_API_KEY,
    queryPrefix: c.EMBEDDING_QUERY_PREFIX,
    documentPrefix: c.EMBEDDING_DOCUMENT_PREFIX,
    timeoutMs: c.EMBEDDING_TIMEOUT_MS,
  };
  return c.EMBEDDER === "openai" ? new OpenAIEmbedder(opts) : new OllamaEmbedder(opts);
}
