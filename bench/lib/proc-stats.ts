/**
 * @module bench/lib/proc-stats
 * What the processes under test cost, read from /proc (Linux only): resident memory (RSS, and PSS,
 * which splits shared pages such as Postgres' shared buffers between the processes that map them),
 * CPU time, and the machine's total CPU use, so a run can say how busy the rest of the machine was.
 *
 * A "root" is a pid we started (a server, a stack process); its whole process tree counts, so a
 * Postgres postmaster brings its backends along.
 *
 * `RssSampler` keeps the peak RSS during a load run without stalling the load generator.
 */
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { childrenTable, descendants, processStat, processTrees } from "../../infra/testing/process-tree.ts";

/** Linux clock ticks per second (`getconf CLK_TCK`); 100 on every mainstream kernel config. */
export const CLK_TCK = 100;

function statusKb(pid: number, field: string): number {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Resident set size of one process, in bytes (0 when it is gone). */
export function rssBytes(pid: number): number {
  return statusKb(pid, "VmRSS") * 1024;
}

/** Proportional set size of one process, in bytes (shared pages divided among their mappers). */
export function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Summed RSS and PSS of the roots' process trees right now. */
export function memoryOf(roots: readonly number[]): { rssBytes: number; pssBytes: number; pids: number } {
  const pids = processTrees(roots);
  let rss = 0;
  let pss = 0;
  for (const p of pids) {
    rss += rssBytes(p);
    pss += pssBytes(p);
  }
  return { rssBytes: rss, pssBytes: pss, pids: pids.length };
}

/** CPU ticks used so far by each root's process tree (children that already exited are not counted). */
export function cpuTicksByRoot(roots: readonly number[]): Map<number, number> {
  const children = childrenTable();
  const out = new Map<number, number>();
  for (const root of roots) {
    let sum = 0;
    // A process that ended during the interval (a Postgres backend closed by an idle pool) takes its
    // ticks with it; its parent's count of reaped children's time (cutime + cstime) keeps them, so
    // the tree's total only grows. Without it a target during which backends closed showed less
    // Postgres CPU than it used (as little as none).
    for (const pid of descendants([root], children)) {
      const st = processStat(pid);
      sum += st ? st.ticks + st.reapedTicks : 0;
    }
    out.set(root, sum);
  }
  return out;
}

/** Machine-wide CPU counters from /proc/stat (all cores), in clock ticks. */
export function machineTicks(): { busy: number; total: number } {
  const first = fs.readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
  const f = first.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already in user.
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = f[3] + (f[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * CPU accounting over an interval: how many cores each root tree used, how many this (load
 * generator) process used, and how many everything else on the machine used.
 */
export class CpuMeter {
  private readonly roots: number[];
  private startByRoot = new Map<number, number>();
  private startSelf = 0;
  private startMachine = { busy: 0, total: 0 };
  private startedAt = 0;

  constructor(roots: readonly number[]) {
    this.roots = [...roots];
  }

  start(): void {
    this.startByRoot = cpuTicksByRoot(this.roots);
    this.startSelf = processStat(process.pid)?.ticks ?? 0;
    this.startMachine = machineTicks();
    this.startedAt = performance.now();
  }

  /** Cores used (CPU seconds per wall second) since start(). */
  stop(): { byRoot: Map<number, number>; self: number; other: number; seconds: number } {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const endByRoot = cpuTicksByRoot(this.roots);
    const endSelf = processStat(process.pid)?.ticks ?? 0;
    const endMachine = machineTicks();
    const byRoot = new Map<number, number>();
    let ours = 0;
    for (const r of this.roots) {
      const d = Math.max(0, (endByRoot.get(r) ?? 0) - (this.startByRoot.get(r) ?? 0));
      ours += d;
      byRoot.set(r, d / CLK_TCK / seconds);
    }
    const self = Math.max(0, endSelf - this.startSelf);
    const busy = endMachine.busy - this.startMachine.busy;
    const other = Math.max(0, busy - ours - self) / CLK_TCK / seconds;
    return { byRoot, self: self / CLK_TCK / seconds, other, seconds };
  }
}

/**
 * Samples the summed RSS of some sets of process trees every 250 ms and keeps each set's peak.
 *
 * It runs on its own thread (bench/lib/rss-sampler-thread.ts) because the load generator shares
 * this process: walking /proc for ~25 processes on its event loop held every in-flight request for
 * 3–20 ms four times a second, which the bench then reported as the server's tail latency (Gantry's
 * p99 measured 27–29 ms with it, 15 ms without; docs/benchmarks.md). For the same reason it reads
 * only RSS, a counter in /proc/<pid>/status: PSS (smaps_rollup) walks each process's page tables
 * under its memory-map lock, which would also stall the processes under test, so PSS is read once,
 * right after the measured run (`memoryOf`).
 *
 * @example
 * const sampler = new RssSampler([[gateway.pid, nats.pid], [gateway.pid]]);
 * await sampler.start();
 * // ... load ...
 * const [stackPeak, frontPeak] = await sampler.stop();
 */
export class RssSampler {
  private readonly sets: number[][];
  private readonly intervalMs: number;
  private worker: Worker | undefined;

  constructor(sets: readonly (readonly number[])[], intervalMs = 250) {
    this.sets = sets.map((s) => [...s]);
    this.intervalMs = intervalMs;
  }

  /** Resolves once the thread has taken its first sample. */
  async start(): Promise<void> {
    const worker = new Worker(new URL("./rss-sampler-thread.ts", import.meta.url), {
      workerData: { sets: this.sets, intervalMs: this.intervalMs },
    });
    this.worker = worker;
    await new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
  }

  /** Takes a last sample, ends the thread and returns the peak summed RSS of each set, in bytes. */
  async stop(): Promise<number[]> {
    const worker = this.worker;
    if (!worker) throw new Error("RssSampler.stop() before start()");
    this.worker = undefined;
    const peaks = await new Promise<number[]>((resolve, reject) => {
      worker.once("message", (m: { peaks: number[] }) => resolve(m.peaks));
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the RSS sampler thread exited (code ${code}) before reporting`)));
      worker.postMessage("stop");
    });
    await worker.terminate();
    return peaks;
  }
}

/**
 * Waits until the roots' trees are (nearly) idle: below `maxCores` CPU over a 500 ms window, for
 * at most `timeoutMs`. Work queued by the previous run (audit records still being written, GC)
 * would otherwise be billed to the next one. Returns how long it waited.
 */
export async function settle(roots: readonly number[], { maxCores = 0.05, timeoutMs = 20_000 } = {}): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const a = cpuTicksByRoot(roots);
    await new Promise((r) => setTimeout(r, 500));
    const b = cpuTicksByRoot(roots);
    let ticks = 0;
    for (const r of roots) ticks += Math.max(0, (b.get(r) ?? 0) - (a.get(r) ?? 0));
    if (ticks / CLK_TCK / 0.5 <= maxCores || performance.now() - t0 > timeoutMs) break;
  }
  return performance.now() - t0;
}
