/**
 * @module kit/idle-memory
 * Gives memory back once a process goes quiet. Preloaded into every service and gateway: by the
 * local runner (`node --expose-gc --import=…/idle-memory.ts <main>`, `NODE_PROCESS_ARGS` in
 * infra/runner/stack.ts) and by the image (`NODE_OPTIONS` in the Dockerfile). Every 0.5 s it reads
 * the process's CPU time, and once the process has used almost none (< 2% of a core) for 2 s after
 * having worked since the last release (≥ 200 ms of CPU: start-up, a burst of calls; or 8 MiB more
 * RSS), it runs one memory-reducing full garbage collection (its cost: docs/benchmarks.md, *The idle
 * collection*). That returns the young generation V8 grew under load and compacts the old one:
 * ≈ 15–30 MiB per process after start, more after load (infra/README.md, "Memory").
 *
 * V8 does this by itself only about 100 s into a quiet spell: its memory reducer waits for a low
 * allocation rate, which it measures at garbage collections, and an idle process makes none, so
 * only the reducer's watchdog ends the wait. A busy process never qualifies, so a steady load
 * keeps V8's own heuristics; one collection runs per busy-then-quiet transition.
 *
 * At the same moment it writes Node's compile cache. Without `--expose-gc` (a process
 * started some other way) it does nothing.
 */
import { flushCompileCache } from "node:module";

const CHECK_MS = 500;
/**
 * CPU time (µs) per check below which the process counts as quiet: 2% of one core. A process's own
 * timers cost CPU at idle too: the gateway's event-loop delay histogram at prom-client's default
 * 100 wake-ups a second took about 0.9% of a core on a slow machine (now 10 a second,
 * gateway/src/metrics.ts), and at a 1% line the gateway's collection waited for a lucky 2 s instead
 * of running (docs/benchmarks.md, *Memory*).
 */
const QUIET_US = CHECK_MS * 1_000 * 0.02;
/** Quiet checks in a row before a release: 2 s. */
const QUIET_CHECKS = 4;
/** CPU time (µs) spent since the last release before another one is worth its pause. */
const WORKED_US = 200_000;
/**
 * Or RSS grown since the last release: a service that collected while it waited for the rest of the
 * stack to start, then answered its first calls and connections (far under 200 ms of CPU), kept
 * what they left, about 10 MiB per service once no outbox relay polled every second.
 */
const GREW_BYTES = 8 * 1024 * 1024;

type GcOptions = { type: "major"; execution: "sync"; flavor: "last-resort" };
const gc = (globalThis as { gc?: (options?: GcOptions) => void }).gc;

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

if (typeof gc === "function") {
  let last = cpuMicros();
  let sinceRelease = 0;
  let quiet = 0;
  let rssAfter = process.memoryUsage.rss();
  const timer = setInterval(() => {
    const now = cpuMicros();
    const used = now - last;
    last = now;
    sinceRelease += used;
    quiet = used < QUIET_US ? quiet + 1 : 0;
    if (quiet < QUIET_CHECKS) return;
    if (sinceRelease < WORKED_US && process.memoryUsage.rss() - rssAfter < GREW_BYTES) return;
    // "last-resort": collect until nothing more is freed, compact, and shrink the young generation.
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    // Node writes its compile cache (NODE_COMPILE_CACHE) at exit; written now, a process that is
    // killed still leaves it for the next start, which then never loads Node's type stripper
    // (≈ 15 MiB per process, kept for the process's life).
    flushCompileCache();
    last = cpuMicros();
    rssAfter = process.memoryUsage.rss();
    sinceRelease = 0;
    quiet = 0;
  }, CHECK_MS);
  timer.unref();
}
