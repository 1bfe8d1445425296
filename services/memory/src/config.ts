/**
 * @module memory/config
 * The memory service's own environment (on top of the kit's base schema), parsed once at start;
 * its TypeScript type is derived from the schema (`MemoryConfig`), so each variable is declared once.
 */
import { defineEnv, type ServiceConfig } from "@gantry/kit";

export const MEMORY_ENV = defineEnv({
  MEMORY_STORE: {
    type: "string",
    enum: ["postgres", "weaviate"],
    default: "postgres",
    description: "vector store: postgres (default; exact in-memory search over the service's schema) or weaviate",
  },
  MEMORY_HALF_LIFE_DAYS: {
    type: "number",
    minimum: 0,
    maximum: 36_500,
    default: 30,
    description:
      "recency half-life in days: score = similarity × 0.5^(age/half-life), age from the memory's last save; 0 disables decay",
  },
  MEMORY_DEDUP_THRESHOLD: {
    type: "number",
    exclusiveMinimum: 0,
    maximum: 1.01,
    default: 0.97,
    description:
      "similarity at or above which memory.save updates the nearest memory instead of adding one (above 1 disables): the vectors' cosine with the lexical embedder, wording similarity (lexical-hash-v1 cosine of the texts) with a semantic one",
  },
  MEMORY_CACHE_MB: {
    type: "integer",
    minimum: 16,
    maximum: 1_048_576,
    default: 1024,
    description:
      "postgres store: memory budget of the in-memory partitions (least recently used are dropped beyond it)",
  },
  MEMORY_CACHE_CHECK_MS: {
    type: "integer",
    minimum: 0,
    maximum: 3_600_000,
    default: 30_000,
    description:
      "postgres store: how often cached partitions are checked against their version (safety net for missed notices; 0 disables)",
  },
  EMBEDDER: {
    type: "string",
    enum: ["sentence", "lexical", "openai", "ollama"],
    default: "sentence",
    description:
      "embedding model: sentence (default; use-lite-512-v1, the Universal Sentence Encoder Lite shipped in an npm package: offline, matches by meaning; falls back to lexical with a warning if it cannot load), lexical (lexical-hash-v1, built in: shared words, plurals and typos only, not meaning), openai (OpenAI-compatible /v1/embeddings) or ollama (/api/embed)",
  },
  EMBEDDER_IDLE_MS: {
    type: "integer",
    minimum: 0,
    default: 60_000,
    description:
      "sentence: the model's worker thread (≈ 85 MiB) is ended after this long without an embedding and started again by the next one (≈ 0.4 s); 0 keeps it loaded",
  },
  EMBEDDING_URL: {
    type: "string",
    pattern: "^https?://",
    description: "base URL of the embedding server (openai, ollama), e.g. http://127.0.0.1:11434",
  },
  EMBEDDING_MODEL: {
    type: "string",
    minLength: 1,
    description: "model name sent to the embedding server, e.g. text-embedding-3-small or nomic-embed-text",
  },
  EMBEDDING_API_KEY: {
    type: "string",
    minLength: 1,
    description: "bearer token for the embedding server, if it needs one",
  },
  EMBEDDING_QUERY_PREFIX: {
    type: "string",
    description: "text prepended to queries before embedding (default for nomic-embed-text: 'search_query: ')",
  },
  EMBEDDING_DOCUMENT_PREFIX: {
    type: "string",
    description: "text prepended to memories before embedding (default for nomic-embed-text: 'search_document: ')",
  },
  EMBEDDING_TIMEOUT_MS: {
    type: "integer",
    minimum: 100,
    maximum: 300_000,
    default: 30_000,
    description: "timeout of one embedding request",
  },
  WEAVIATE_URL: {
    type: "string",
    pattern: "^https?://",
    description: "Weaviate HTTP URL (MEMORY_STORE=weaviate), e.g. http://127.0.0.1:8080",
  },
  WEAVIATE_GRPC_PORT: {
    type: "integer",
    minimum: 1,
    maximum: 65535,
    default: 50051,
    description: "Weaviate gRPC port (same host as WEAVIATE_URL)",
  },
  WEAVIATE_API_KEY: { type: "string", minLength: 1, description: "Weaviate API key, if the server requires one" },
  WEAVIATE_PREFIX: {
    type: "string",
    pattern: "^[A-Z][A-Za-z0-9]*$",
    default: "Gantry",
    description: "prefix of the Weaviate collections Gantry creates",
  },
  WEAVIATE_INDEX: {
    type: "string",
    enum: ["hnsw", "flat"],
    default: "hnsw",
    description: "Weaviate vector index of new collections: hnsw (approximate, scales) or flat (exact)",
  },
  LESSONS_MAX_AGE_DAYS: {
    type: "integer",
    minimum: 1,
    maximum: 3650,
    default: 90,
    description: "how long the LESSONS stream keeps lesson.recorded events",
  },
  LESSONS_MERGE_THRESHOLD: {
    type: "number",
    exclusiveMinimum: 0,
    maximum: 1.01,
    default: 0.7,
    description:
      "cosine (title + lesson embeddings, the configured embedder) at or above which a recorded lesson is merged into the tenant's nearest consolidated lesson (above 1: never merged). With use-lite-512-v1 paraphrases of one lesson score ≈ 0.75–0.85 and different lessons ≤ ≈ 0.55",
  },
  LESSONS_RELEVANCE_THRESHOLD: {
    type: "number",
    minimum: 0,
    maximum: 1.01,
    default: 0.55,
    description:
      "cosine with a plan's goal at or above which a consolidated lesson is relevant to it (one whose trigger the goal names always is)",
  },
});

/** The memory service's configuration (base variables included), derived from the schemas. */
export type MemoryConfig = ServiceConfig<typeof MEMORY_ENV>;
