/**
 * @module memory/embed
 * Picks the embedder from configuration: `EMBEDDER=lexical` (default, built in), `openai`
 * (OpenAI-compatible `/v1/embeddings`) or `ollama` (`/api/embed`).
 */
import { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";
import { LexicalHashEmbedder } from "./lexical.ts";
import type { Embedder } from "./types.ts";

export * from "./types.ts";
export { LexicalHashEmbedder, LEXICAL_MODEL } from "./lexical.ts";
export { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";

export interface EmbedderConfig {
  EMBEDDER: "lexical" | "openai" | "ollama";
  EMBEDDING_URL?: string;
  EMBEDDING_MODEL?: string;
  EMBEDDING_API_KEY?: string;
  EMBEDDING_QUERY_PREFIX?: string;
  EMBEDDING_DOCUMENT_PREFIX?: string;
  EMBEDDING_TIMEOUT_MS: number;
}

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
