/**
 * @module web/reader
 * The page reader: HTML to clean content (./extract.ts: jsdom, Readability, turndown) in a worker
 * process (./extract-worker.ts, the kit's `IdleWorker`) that ends after `WEB_READER_IDLE_MS`
 * without a page to read. Loaded in the service's own thread, those libraries and the heap they grew
 * held 150–230 MiB for the rest of its life after the first pages (an ES module cannot be unloaded);
 * a worker thread would not give that memory back either when it ended. A process does: the next
 * page starts it again (≈ 0.3 s). Reading a large page no longer stalls the service's other calls.
 */
import { IdleWorker } from "@gantry/kit";
import type { Extracted } from "./extract.ts";

/** A call to ./extract-worker.ts: a document and the URL it came from (links resolve against it). */
export type ReadRequest = { html: string; url: string };

export type PageReader = IdleWorker<ReadRequest, Extracted>;

export function pageReader(idleMs: number): PageReader {
  return new IdleWorker<ReadRequest, Extracted>({
    url: new URL("./extract-worker.ts", import.meta.url),
    name: "web-page-reader",
    what: "the page reader",
    idleMs,
    isolation: "process",
  });
}
