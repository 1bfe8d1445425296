/**
 * @module kit/serving-child
 * A server the tests start as a child process (Jaeger, versitygw, Weaviate, Prism): waited for
 * until it answers, and stopped. One copy of the wait, so each one fails the same way: when the
 * child exits first or does not answer in time, it is stopped and the error carries the last try's
 * failure and the end of its output (why a binary did not start is in what it printed, not in a timeout).
 *
 * @example
 * const child = spawn(bin, ["--port", String(port)], { stdio: ["ignore", "pipe", "pipe"] });
 * const server = await untilServing(child, { what: "jaeger", timeoutMs: 30_000, ready: async () => (await fetch(url)).ok });
 * await server.stop();
 */
import type { ChildProcess } from "node:child_process";

export interface UntilServingOptions {
  /** For the error: "jaeger". */
  what: string;
  /** True once the child answers; a throw counts as "not yet". */
  ready: () => Promise<boolean>;
  timeoutMs: number;
  intervalMs?: number;
}

/** Keeps the last `max` characters of what the child writes to its piped stdout and stderr. */
function outputTail(child: ChildProcess, max = 4_000): () => string {
  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-max);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return () => tail;
}

/** Ends the child: SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const kill = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(kill);
}

/** Waits until `child` answers `ready`; stops it and throws, with its output's end, when it exits first or times out. */
export async function untilServing(
  child: ChildProcess,
  opts: UntilServingOptions,
): Promise<{ stop: () => Promise<void> }> {
  const output = outputTail(child);
  const deadline = Date.now() + opts.timeoutMs;
  let last = "";
  for (;;) {
    const ok = await opts.ready().catch((err: Error) => {
      last = err.message;
      return false;
    });
    if (ok) return { stop: () => stopChild(child) };
    const exited = child.exitCode !== null || child.signalCode !== null;
    if (exited || Date.now() > deadline) {
      await stopChild(child);
      const why = exited
        ? `exited (${child.exitCode ?? child.signalCode})`
        : `did not answer within ${opts.timeoutMs} ms`;
      throw new Error(`${opts.what} did not start: it ${why}${last && ` (last try: ${last})`}\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
