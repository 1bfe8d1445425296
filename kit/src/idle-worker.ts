/**
 * @module kit/idle-worker
 * Work that runs in a worker (a thread, or a child process) which ends when it has nothing to do.
 * Some work needs large libraries or data (a language model, jsdom): loaded in the service's own
 * thread they would stay for the life of the process, since ES modules cannot be unloaded. In a
 * worker they go with the worker: after `idleMs` without a call in flight it is ended, and the next
 * call starts it again. Its CPU work never blocks the service's event loop either.
 *
 * The worker module serves calls with `serveWorkerCalls`; the service calls it through an
 * `IdleWorker`. Calls are answered one at a time, in order. A worker that dies is started again on
 * the next call; the calls it was serving fail with `unavailable` (retryable).
 *
 * **Thread or process.** A worker thread is cheap to start, but on Linux the memory its heap grew to
 * stays with the process after it ends (Node gives little of a terminated isolate's pages back: a
 * thread that grew to 300 MiB leaves about 270). Work whose memory must go when it ends runs as a
 * child process (`isolation: "process"`: the same node, options and environment, messages over IPC
 * with the structured clone), whose memory the kernel takes back at exit; it exits by itself if the
 * service goes away.
 *
 * @example
 * // extract-worker.ts
 * serveWorkerCalls(async () => { const lib = await import("jsdom"); return (req) => ({ result: work(lib, req) }); });
 * // service
 * const reader = new IdleWorker<Req, Res>({ url: new URL("./extract-worker.ts", import.meta.url), name: "web-reader", what: "the page reader", idleMs: 60_000 });
 * const res = await reader.call(req);
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parentPort, Worker, type Transferable } from "node:worker_threads";
import { GantryError } from "./errors.ts";

export interface IdleWorkerOptions {
  /** The worker module; it calls `serveWorkerCalls`. */
  url: URL;
  /** The thread's name; a process carries it as `--idle-worker=<name>` on its command line (ps, the bench). */
  name: string;
  /** What the worker does, for messages: "the sentence model". */
  what: string;
  /** End the worker after this long without a call in flight (0, the default: keep it). */
  idleMs?: number;
  /** How long starting it may take before it counts as failed (default 60 s). */
  loadTimeoutMs?: number;
  /** A worker thread (the default) or a child process, whose memory is returned when it ends. */
  isolation?: "thread" | "process";
}

/** What the IdleWorker uses of a worker thread or a child process. */
interface Handle {
  send(message: unknown, transfer: readonly Transferable[]): void;
  on(event: "message", listener: (message: never) => void): void;
  on(event: "error", listener: (err: Error) => void): void;
  on(event: "exit", listener: (code: number | null) => void): void;
  /** Whether it keeps the event loop alive. */
  hold(held: boolean): void;
  end(): Promise<unknown>;
}

function threadHandle(url: URL, name: string): Handle {
  const w = new Worker(url, { name });
  return {
    send: (message, transfer) => w.postMessage(message, transfer),
    on: (event: string, listener: (...args: never[]) => void) =>
      void w.on(event, listener as (...args: unknown[]) => void),
    hold: (held) => (held ? w.ref() : w.unref()),
    end: () => w.terminate(),
  };
}

function processHandle(url: URL, name: string): Handle {
  const child: ChildProcess = fork(fileURLToPath(url), [`--idle-worker=${name}`], {
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    // Transfer lists are for threads; over IPC the message is copied.
    send: (message) => void child.send(message as object),
    on: (event: string, listener: (...args: never[]) => void) =>
      void child.on(event, listener as (...args: unknown[]) => void),
    hold: (held) => {
      if (held) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
    end: () => {
      if (child.exitCode === null && child.signalCode === null) {
        // An unref'd child (idle) does not keep Node running: in an otherwise idle process the wait
        // for its exit would never end (node exits with an unsettled await instead).
        child.ref();
        child.kill("SIGTERM");
      }
      return exited;
    },
  };
}

type Reply<Res> = { ready: true } | { ready: false; error: string } | { id: number; result?: Res; error?: string };

interface Pending<Res> {
  resolve: (result: Res) => void;
  reject: (err: Error) => void;
}

export class IdleWorker<Req, Res> {
  private readonly opts: Required<IdleWorkerOptions>;
  private worker?: Promise<Handle>;
  /** The worker now serving calls (an ended one's late events are ignored). */
  private current?: Handle;
  private idleTimer?: NodeJS.Timeout;
  private readonly pending = new Map<number, Pending<Res>>();
  private nextId = 1;
  private closed = false;

  constructor(opts: IdleWorkerOptions) {
    this.opts = {
      ...opts,
      loadTimeoutMs: opts.loadTimeoutMs ?? 60_000,
      idleMs: opts.idleMs ?? 0,
      isolation: opts.isolation ?? "thread",
    };
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
    w.hold(true);
    w.send({ id, request }, transfer);
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const w = await this.worker?.catch(() => undefined);
    this.worker = undefined;
    await w?.end();
  }

  private started(): Promise<Handle> {
    if (this.closed) return Promise.reject(new GantryError("unavailable", "The service is shutting down."));
    this.worker ??= this.start().catch((err) => {
      this.worker = undefined;
      throw err;
    });
    return this.worker;
  }

  private endWhenIdle(w: Handle): void {
    if (this.opts.idleMs <= 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size > 0 || this.current !== w) return;
      // Forgotten first, so a call arriving while it ends starts a new worker.
      this.current = undefined;
      this.worker = undefined;
      void w.end();
    }, this.opts.idleMs);
    this.idleTimer.unref();
  }

  private start(): Promise<Handle> {
    const { what } = this.opts;
    return new Promise((resolve, reject) => {
      const w =
        this.opts.isolation === "process"
          ? processHandle(this.opts.url, this.opts.name)
          : threadHandle(this.opts.url, this.opts.name);
      this.current = w;
      let loaded = false;
      const timer = setTimeout(() => {
        reject(new Error(`${what} did not load within ${this.opts.loadTimeoutMs} ms`));
        void w.end();
      }, this.opts.loadTimeoutMs);
      w.on("message", (m: Reply<Res>) => {
        if ("ready" in m) {
          clearTimeout(timer);
          if (m.ready) {
            loaded = true;
            w.hold(false);
            this.endWhenIdle(w);
            resolve(w);
          } else {
            reject(new Error(`${what} could not load: ${m.error}`));
            void w.end();
          }
          return;
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        // An idle worker must not keep a process alive (commands, tests).
        if (this.pending.size === 0) {
          w.hold(false);
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

/** The side of the channel a worker answers on. */
interface Port {
  post(message: unknown, transfer?: readonly Transferable[]): void;
  onMessage(listener: (message: { id: number; request: unknown }) => void): void;
}

/** The parent: a worker thread's port, or the IPC channel of a child process (`isolation: "process"`). */
function parentOfWorker(): Port {
  const port = parentPort;
  if (port)
    return { post: (m, transfer) => port.postMessage(m, transfer ?? []), onMessage: (l) => port.on("message", l) };
  const send = process.send?.bind(process);
  if (!send) throw new Error("serveWorkerCalls runs in a worker thread or process (see kit/src/idle-worker.ts)");
  // A service that went away (even killed) closes the channel: its worker must not outlive it.
  process.on("disconnect", () => process.exit(0));
  return { post: (m) => void send(m as object), onMessage: (l) => process.on("message", l) };
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
  const port = parentOfWorker();
  let answer: Awaited<ReturnType<typeof load>>;
  try {
    answer = await load();
  } catch (err) {
    port.post({ ready: false, error: err instanceof Error ? err.message : String(err) });
    return;
  }
  let queue = Promise.resolve();
  port.onMessage(({ id, request }) => {
    queue = queue.then(async () => {
      try {
        const { result, transfer } = await answer(request as Req);
        port.post({ id, result }, transfer);
      } catch (err) {
        port.post({ id, error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  port.post({ ready: true });
}
