/**
 * @module infra/runner/supervisor
 * Child-process supervision for the local runner: every process (dependency, service, gateway)
 * is a {@link ManagedProcess} that captures its output line by line into a {@link LogSink},
 * leads its own process group, is restarted with backoff (200 ms doubling to 5 s) when it
 * crashes, and is registered with a {@link Watchdog} that kills it if the runner itself dies.
 *
 * @example
 * const sink = new LogSink((proc, line) => console.log(`${proc} | ${line}`));
 * const watchdog = new Watchdog();
 * const p = new ManagedProcess({ name: "echo", command: "sleep", args: ["60"] }, sink, watchdog);
 * p.start();
 * await p.stop();
 * watchdog.close();
 */
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

export type Stream = "stdout" | "stderr" | "runner";
/** Receives every captured line: `proc` is the process name (`keys`, `postgres`, `runner`). */
export type LineHandler = (proc: string, line: string, stream: Stream) => void;

const MAX_CAPTURE_CHARS = 64 * 1024 * 1024;
const TAIL_LINES = 40;

/** Collects all output of a stack (for `logs()`), keeps each process's last lines, and echoes. */
export class LogSink {
  private lines: string[] = [];
  private chars = 0;
  private tails = new Map<string, string[]>();
  private listeners = new Set<LineHandler>();
  private echo: LineHandler | undefined;

  constructor(echo?: LineHandler) {
    this.echo = echo;
  }

  write(proc: string, line: string, stream: Stream = "runner"): void {
    const entry = `${proc} | ${line}`;
    this.lines.push(entry);
    this.chars += entry.length + 1;
    if (this.chars > MAX_CAPTURE_CHARS) {
      const dropped = this.lines.splice(0, Math.floor(this.lines.length / 2));
      this.chars -= dropped.reduce((n, l) => n + l.length + 1, 0);
    }
    let tail = this.tails.get(proc);
    if (!tail) {
      tail = [];
      this.tails.set(proc, tail);
    }
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    this.echo?.(proc, line, stream);
    for (const l of this.listeners) l(proc, line, stream);
  }

  /** Everything captured so far, one `proc | line` per line. */
  text(): string {
    return this.lines.join("\n") + (this.lines.length ? "\n" : "");
  }

  /** The last `n` lines a process printed. */
  tail(proc: string, n = 15): string[] {
    return (this.tails.get(proc) ?? []).slice(-n);
  }

  /** Subscribe to lines as they arrive; returns an unsubscribe function. */
  subscribe(fn: LineHandler): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

const WATCHDOG_SCRIPT = fileURLToPath(new URL("./watchdog.ts", import.meta.url));

/**
 * The runner's dead-man switch: a detached process holding a pipe from us. If we die, the pipe
 * closes and it stops every process group still registered.
 */
export class Watchdog {
  private child: ChildProcess | undefined;

  constructor() {
    try {
      const child = spawn(process.execPath, [WATCHDOG_SCRIPT], {
        detached: true,
        stdio: ["pipe", "ignore", "ignore"],
      });
      child.on("error", () => {
        this.child = undefined;
      });
      child.stdin?.on("error", () => {
        this.child = undefined;
      });
      child.unref();
      // The pipe must not keep the runner alive on its own.
      (child.stdin as unknown as { _handle?: { unref?: () => void } })?._handle?.unref?.();
      this.child = child;
    } catch {
      this.child = undefined;
    }
  }

  add(pid: number, signal: NodeJS.Signals): void {
    this.send(`+${pid} ${signal}`);
  }

  remove(pid: number): void {
    this.send(`-${pid}`);
  }

  /** Remove `dir` if we die without cleaning up ourselves. */
  addDir(dir: string): void {
    this.send(`dir ${dir}`);
  }

  /** We removed `dir` ourselves. */
  removeDir(dir: string): void {
    this.send(`-dir ${dir}`);
  }

  /** Close the pipe: the watchdog stops whatever is still registered, then exits. */
  close(): void {
    this.child?.stdin?.end();
    this.child = undefined;
  }

  private send(line: string): void {
    const stdin = this.child?.stdin;
    if (stdin && !stdin.destroyed) stdin.write(`${line}\n`);
  }
}

export interface ProcessSpec {
  /** Short name used as the log prefix and in `stopService(name)`. */
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  uid?: number;
  gid?: number;
  /** Signal for a graceful stop (default SIGTERM; Postgres uses SIGINT = fast shutdown). */
  stopSignal?: NodeJS.Signals;
  /** How long a graceful stop may take before SIGKILL (default 5 s). */
  stopTimeoutMs?: number;
  /** Restart after a crash (default true). */
  restart?: boolean;
  /** Readiness probe; without one, a running process counts as healthy. */
  health?: () => Promise<boolean>;
  /** Where the process listens, for messages ("gRPC 127.0.0.1:50051"). */
  endpoint?: string;
}

export type ProcessState = "idle" | "running" | "backoff" | "stopping" | "stopped" | "exited";

export interface WaitHealthyOptions {
  timeoutMs?: number;
  /** Give up early when the process exited this many times while we waited. */
  failAfterExits?: number;
}

function signalGroup(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig);
  } catch {
    /* group already gone */
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One supervised child process. */
export class ManagedProcess {
  readonly spec: ProcessSpec;
  state: ProcessState = "idle";
  /** How many times the process exited without being asked to. */
  crashes = 0;
  /** How many times it was spawned. */
  spawns = 0;
  private child: ChildProcess | undefined;
  private sink: LogSink;
  private watchdog: Watchdog;
  private backoffMs = 200;
  private restartTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private exits = 0;
  private exitWaiters: Array<() => void> = [];

  constructor(spec: ProcessSpec, sink: LogSink, watchdog: Watchdog) {
    this.spec = spec;
    this.sink = sink;
    this.watchdog = watchdog;
  }

  get name(): string {
    return this.spec.name;
  }

  /** PID of the running child, if any. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Start the process (no-op when it is already running or waiting to restart). */
  start(): void {
    if (this.child || this.state === "backoff") return;
    this.backoffMs = 200;
    this.spawnChild();
  }

  private spawnChild(): void {
    this.restartTimer = undefined;
    const { spec } = this;
    let child: ChildProcess;
    try {
      child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        uid: spec.uid,
        gid: spec.gid,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (err) {
      this.sink.write("runner", `${spec.name}: could not start ${spec.command}: ${(err as Error).message}`);
      this.state = "exited";
      this.exits++;
      return;
    }
    this.child = child;
    this.state = "running";
    this.spawns++;
    this.startedAt = Date.now();
    if (child.pid) this.watchdog.add(child.pid, spec.stopSignal ?? "SIGTERM");
    // Children never keep the runner alive by themselves: a test file that forgets stop() still
    // ends, and the exit hook / watchdog kill what is left. (`npm start` keeps itself alive.)
    child.unref();
    for (const [stream, name] of [
      [child.stdout, "stdout"],
      [child.stderr, "stderr"],
    ] as const) {
      if (!stream) continue;
      (stream as unknown as { unref?: () => void }).unref?.();
      readline.createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
        if (line.length > 0) this.sink.write(spec.name, line, name);
      });
    }
    let settled = false;
    const onGone = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      this.onExit(child, code, signal);
    };
    child.on("error", (err) => {
      this.sink.write("runner", `${spec.name}: ${err.message}`);
      if (!child.pid) onGone(-1, null);
    });
    child.on("exit", onGone);
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child.pid) {
      this.watchdog.remove(child.pid);
      signalGroup(child.pid, "SIGKILL"); // leftovers of the group (e.g. a browser it started)
    }
    if (this.child === child) this.child = undefined;
    this.exits++;
    const waiters = this.exitWaiters;
    this.exitWaiters = [];
    for (const w of waiters) w();

    if (this.state === "stopping" || this.state === "stopped") {
      this.state = "stopped";
      return;
    }
    this.crashes++;
    const uptime = Date.now() - this.startedAt;
    if (uptime > 10_000) this.backoffMs = 200;
    const how = `${this.spec.name} exited unexpectedly (${describeExit(code, signal)}) after ${(uptime / 1000).toFixed(1)} s`;
    if (this.spec.restart === false) {
      this.state = "exited";
      this.sink.write("runner", `${how}; not restarting`);
      return;
    }
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    this.state = "backoff";
    this.sink.write("runner", `${how}; restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      if (this.state === "backoff") this.spawnChild();
    }, delay);
  }

  /** Resolves when the current child (if any) has exited. */
  private waitExit(): Promise<void> {
    if (!this.child) return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /**
   * Stop on purpose (no restart): the stop signal to the process, SIGKILL to its whole group
   * after `stopTimeoutMs`.
   */
  async stop(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const child = this.child;
    this.state = "stopping";
    if (!child?.pid) {
      this.state = "stopped";
      return;
    }
    const exited = this.waitExit();
    try {
      child.kill(this.spec.stopSignal ?? "SIGTERM");
    } catch {
      /* already gone */
    }
    const timeout = this.spec.stopTimeoutMs ?? 5000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), timeout))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.sink.write("runner", `${this.spec.name} did not stop within ${timeout} ms; killing it`);
      signalGroup(child.pid, "SIGKILL");
      await exited;
    }
    this.state = "stopped";
  }

  /** SIGKILL the whole group now, synchronously (used from `process.on("exit")`). */
  killNow(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.state = "stopped";
    if (this.child?.pid) signalGroup(this.child.pid, "SIGKILL");
  }

  /** Send a signal to the running process only (tests use it to simulate a crash). */
  signal(sig: NodeJS.Signals): boolean {
    if (!this.child?.pid) return false;
    try {
      process.kill(this.child.pid, sig);
      return true;
    } catch {
      return false;
    }
  }

  /** One readiness probe (false while not running). */
  async isHealthy(): Promise<boolean> {
    if (!this.child) return false;
    if (!this.spec.health) return true;
    return this.spec.health();
  }

  /**
   * Poll until the process is healthy. Fails after `timeoutMs` (default 60 s), or sooner when
   * it exited and will not be restarted, naming the process and quoting its last log lines.
   */
  async waitHealthy(opts: WaitHealthyOptions = {}): Promise<void> {
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const started = Date.now();
    const exitsAtStart = this.exits;
    for (;;) {
      if (this.state === "stopped" || this.state === "stopping" || this.state === "idle") {
        throw this.failure(`${this.spec.name} is not running (state ${this.state})`);
      }
      if (this.state === "exited") throw this.failure(`${this.spec.name} exited and is not restarted`);
      if (opts.failAfterExits && this.exits - exitsAtStart >= opts.failAfterExits) {
        throw this.failure(`${this.spec.name} keeps crashing (${this.exits - exitsAtStart} exits while starting)`);
      }
      if (await this.isHealthy().catch(() => false)) return;
      if (Date.now() - started > timeoutMs) {
        throw this.failure(
          `${this.spec.name} is not healthy after ${(timeoutMs / 1000).toFixed(0)} s` +
            (this.spec.endpoint ? ` (probing ${this.spec.endpoint})` : ""),
        );
      }
      await sleep(100);
    }
  }

  private failure(message: string): Error {
    const tail = this.sink.tail(this.spec.name, 15);
    const body = tail.length ? tail.map((l) => `  ${this.spec.name} | ${l}`).join("\n") : "  (it printed nothing)";
    return new Error(`${message}. Its last log lines:\n${body}`);
  }
}
