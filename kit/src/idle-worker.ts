/**
 * @module kit/idle-worker
 * Work that runs in a worker thread which ends when it has nothing to do. Some work needs large
 * libraries or data (a language model, jsdom): loaded in the service's own thread they would stay
 * for the life of the process, since ES modules cannot be unloaded. In a worker they go with the
 * worker: after `idleMs` without a call in flight it is ended and its memory returned, and the next
 * call starts it again. Its CPU work never blocks the service's event loop either.
 *
 * The worker module serves calls with `serveWorkerCalls`; the service calls it through an
 * `IdleWorker`. Calls are answered one at a time, in order. A worker that dies is started again on
 * the next call; the calls it was serving fail with `unavailable` (retryable).
 *
 * @example
 * // extract-worker.ts
 * serveWorkerCalls(async () => { const lib = await import("jsdom"); return (req) => ({ result: work(lib, req) }); });
 * // service
 * const reader = new IdleWorker<Req, Res>({ url: new URL("./extract-worker.ts", import.meta.url), name: "web-reader", what: "the page reader", idleMs: 60_000 });
 * const res = await reader.call(req);
 */
import { parentPort, Worker, type Transferable } from "node:worker_threads";
import { GantryError } from "./errors.ts";

export interface IdleWorkerOptions {
  /** The worker module; it calls `serveWorkerCalls`. */
  url: URL;
  /** The thread's name. */
  name: string;
  /** What the worker does, for messages: "the sentence model". */
  what: string;
  /** End the worker after this long without a call in flight (0, the default: keep it). */
  idleMs?: number;
  /** How long starting it may take before it counts as failed (default 60 s). */
  loadTimeoutMs?: number;
}

type Reply<Res> = { ready: true } | { ready: false; error: string } | { id: number; result?: Res; error?: string };

interface Pending<Res> {
  resolve: (result: Res) => void;
  reject: (err: Error) => void;
}

export class IdleWorker<Req, Res> {
  private readonly opts: Required<IdleWorkerOptions>;
  private worker?: Promise<Worker>;
  /** The worker now serving calls (an ended one's late events are ignored). */
  private current?: Worker;
  private idleTimer?: NodeJS.Timeout;
  private readonly pending = new Map<number, Pending<Res>>();
  private nextId = 1;
  private closed = false;

  constructor(opts: IdleWorkerOptions) {
    this.opts = { ...opts, loadTimeoutMs: opts.loadTimeoutMs ?? 60_000, idleMs: opts.idleMs ?? 0 };
  }

  /** Whether the worker is running now (for tests and metrics). */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Starts the worker if it is not running and waits until it is ready; rejects when it cannot start. */
  async ready(): Promise<void> {
    await this.started();
  }

  /** Runs one call in the worker. Its own failure rejects with `internal`, a worker that stopped with `unavailable`. */
  async call(request: Req, transfer: readonly Transferable[] = []): Promise<Res> {
    const w = await this.started();
    const id = this.nextId++;
    const out = new Promise<Res>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    clearTimeout(this.idleTimer);
    w.ref();
    w.postMessage({ id, request }, transfer);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const w = await this.worker?.catch(() => undefined);
    this.worker = undefined;
    await w?.terminate();
  }

  private started(): Promise<Worker> {
    if (this.closed) return Promise.reject(new GantryError("unavailable", "The service is shutting down."));
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
    const { what } = this.opts;
    return new Promise((resolve, reject) => {
      const w = new Worker(this.opts.url, { name: this.opts.name });
      this.current = w;
      let loaded = false;
      const timer = setTimeout(() => {
        reject(new Error(`${what} did not load within ${this.opts.loadTimeoutMs} ms`));
        void w.terminate();
      }, this.opts.loadTimeoutMs);
      w.on("message", (m: Reply<Res>) => {
        if ("ready" in m) {
          clearTimeout(timer);
          if (m.ready) {
            loaded = true;
            w.unref();
            this.endWhenIdle(w);
            resolve(w);
          } else {
            reject(new Error(`${what} could not load: ${m.error}`));
            void w.terminate();
          }
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        // An idle worker must not keep a process alive (commands, tests).
        if (this.pending.size === 0) {
          w.unref();
          this.endWhenIdle(w);
        }
        if (m.error === undefined) p.resolve(m.result as Res);
        else p.reject(new GantryError("internal", `${capitalised(what)} failed.`, { cause: new Error(m.error) }));
      });
      w.on("error", (err) => {
        clearTimeout(timer);
        if (!loaded) reject(new Error(`${what} could not load: ${err.message}`));
      });
      w.on("exit", (code) => {
        clearTimeout(timer);
        if (this.current === w) this.current = undefined;
        if (!loaded) {
          reject(new Error(`${what}'s worker exited (code ${code}) before it loaded`));
          return;
        }
        // Ended for idleness: a newer worker may already serve calls.
        if (this.current !== undefined) return;
        this.worker = undefined;
        for (const p of this.pending.values()) {
          p.reject(new GantryError("unavailable", `${capitalised(what)} stopped; retry the call.`));
        }
        this.pending.clear();
      });
    });
  }
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What a served call returns: its result, and the buffers to transfer rather than copy. */
export interface WorkerAnswer<Res> {
  result: Res;
  transfer?: readonly Transferable[];
}

/**
 * The worker side of an `IdleWorker`: `load` runs once (import the libraries, load the model) and
 * returns the function that answers a call. Calls are answered one at a time, in order.
 */
export async function serveWorkerCalls<Req, Res>(
  load: () => Promise<(request: Req) => WorkerAnswer<Res> | Promise<WorkerAnswer<Res>>>,
): Promise<void> {
  if (!parentPort) throw new Error("serveWorkerCalls runs in a worker thread (see kit/src/idle-worker.ts)");
  const port = parentPort;
  let answer: Awaited<ReturnType<typeof load>>;
  try {
    answer = await load();
  } catch (err) {
    port.postMessage({ ready: false, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  let queue = Promise.resolve();
  port.on("message", ({ id, request }: { id: number; request: Req }) => {
    queue = queue.then(async () => {
      try {
        const { result, transfer } = await answer(request);
        port.postMessage({ id, result }, transfer ?? []);
      } catch (err) {
        port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  port.postMessage({ ready: true });
}
