/**
 * @module web/reader
 * The page reader: HTML to clean content (./extract.ts: a DOM, Readability, turndown) in worker
 * processes (./extract-worker.ts, the kit's `IdleWorker`), each ended after `WEB_READER_IDLE_MS`
 * without a page to read. Loaded in the service's own thread, those libraries and the heap they grew
 * held 150–230 MiB (with jsdom) for the rest of its life after the first pages (an ES module cannot be
 * unloaded); a worker thread would not give that memory back either when it ended. A process does:
 * the next page starts it again (≈ 0.3 s). Reading a large page never stalls the service's other calls.
 *
 * `WEB_READER_WORKERS` processes read pages side by side (a worker reads one page at a time): a page
 * goes to the worker with the fewest pages in hand, the first on a tie, so under light load only the
 * first one runs and the others end when idle.
 */
import { IdleWorker } from "@gantry/kit";
import type { DomName, Extracted } from "./extract.ts";

/** A call to ./extract-worker.ts: a document, the URL it came from (links resolve against it), the DOM to parse it with. */
export type ReadRequest = { html: string; url: string; dom: DomName };

export interface PageReaderOptions {
  /** Worker processes reading pages side by side (default 1). */
  workers?: number;
  /** The DOM pages are parsed into (default linkedom). */
  dom?: DomName;
}

export class PageReader {
  private readonly workers: IdleWorker<ReadRequest, Extracted>[];
  private readonly inHand: number[];
  private readonly dom: DomName;

  constructor(idleMs: number, opts: PageReaderOptions = {}) {
    this.dom = opts.dom ?? "linkedom";
    this.workers = Array.from(
      { length: Math.max(1, opts.workers ?? 1) },
      (_, i) =>
        new IdleWorker<ReadRequest, Extracted>({
          url: new URL("./extract-worker.ts", import.meta.url),
          name: i === 0 ? "web-page-reader" : `web-page-reader-${i + 1}`,
          what: "the page reader",
          idleMs,
          isolation: "process",
        }),
    );
    this.inHand = this.workers.map(() => 0);
  }

  /** How many of its workers run now (for tests and metrics). */
  get running(): number {
    return this.workers.filter((w) => w.running).length;
  }

  async call(page: { html: string; url: string }): Promise<Extracted> {
    let pick = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.inHand[i] < this.inHand[pick]) pick = i;
    this.inHand[pick]++;
    try {
      return await this.workers[pick].call({ ...page, dom: this.dom });
    } finally {
      this.inHand[pick]--;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
  }
}

export function pageReader(idleMs: number, opts: PageReaderOptions = {}): PageReader {
  return new PageReader(idleMs, opts);
}
