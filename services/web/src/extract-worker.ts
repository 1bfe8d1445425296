/**
 * @module web/extract-worker
 * The page reader's worker process (./reader.ts): extracts a document with ./extract.ts, whose
 * libraries load here on the first page and leave with the worker.
 */
import { serveWorkerCalls } from "@gantry/kit/idle-worker.ts";
import { type Extracted, extractHtml } from "./extract.ts";
import type { ReadRequest } from "./reader.ts";

await serveWorkerCalls<ReadRequest, Extracted>(async () => async ({ html, url, dom }) => ({
  result: await extractHtml(html, url, dom),
}));
