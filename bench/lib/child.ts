/**
 * @module bench/lib/child
 * Starts one server process for a benchmark and stops it again: waits until it says it is ready
 * (a `READY <port>` line on stdout, or a health probe), keeps the tail of its output for error
 * messages, counts the lines it prints (logging on the hot path shows up here), and is killed if the
 * bench itself exits.
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Ready when a stdout line matches; the first capture group, if any, is the port. */
  readyLine?: RegExp;
  /** Ready when this resolves true (polled every 50 ms). */
  health?: () => Promise<boolean>;
  timeoutMs?: number;
  /** Put the child in its own process group (so the whole group can be signalled). */
  detached?: boolean;
}

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Port from the ready line, when it had one. */
  port: number | undefined;
  /** Lines printed (stdout + stderr) since start. */
  lines: () => number;
  tail: () => string;
  /** SIGTERM (to the group when detached), SIGKILL after `graceMs`. Resolves when it exited. */
  stop: (graceMs?: number) => Promise<void>;
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const p of live) {
    try {
      p.kill("SIGKILL");
    } catch {
      /* gone */
    }
  }
});

export async function startChild(spec: ChildSpec): Promise<Child> {
  const proc = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: spec.detached ?? false,
  });
  live.add(proc);
  let lines = 0;
  const tailLines: string[] = [];
  let port: number | undefined;
  let readyResolve: (() => void) | undefined;
  const readyByLine = new Promise<void>((resolve) => (readyResolve = resolve));
  const onText = (isStdout: boolean) => {
    let partial = "";
    return (chunk: Buffer) => {
      const text = partial + chunk.toString("utf8");
      const parts = text.split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        lines++;
        tailLines.push(line);
        if (tailLines.length > 40) tailLines.shift();
        if (isStdout && spec.readyLine && port === undefined) {
          const m = spec.readyLine.exec(line);
          if (m) {
            port = m[1] ? Number(m[1]) : 0;
            readyResolve?.();
          }
        }
      }
    };
  };
  proc.stdout!.on("data", onText(true));
  proc.stderr!.on("data", onText(false));
  const exited = new Promise<number | null>((resolve) => {
    proc.once("exit", (code) => {
      live.delete(proc);
      resolve(code);
    });
    proc.once("error", () => {
      live.delete(proc);
      resolve(null);
    });
  });
  const tail = () => tailLines.join("\n");

  const stop = async (graceMs = 5_000) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const signal = (s: NodeJS.Signals) => {
      try {
        if (spec.detached && proc.pid) process.kill(-proc.pid, s);
        else proc.kill(s);
      } catch {
        /* already gone */
      }
    };
    signal("SIGTERM");
    const timer = setTimeout(() => signal("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const timeoutMs = spec.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const ready: Promise<boolean> = spec.readyLine
    ? readyByLine.then(() => true)
    : (async () => {
        while (Date.now() < deadline && proc.exitCode === null) {
          if (await spec.health!()) return true;
          await new Promise((r) => setTimeout(r, 50));
        }
        return false;
      })();
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    ready.then((ok) => (ok ? ("ready" as const) : ("timeout" as const))),
    exited.then(() => "exited" as const),
    new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (outcome !== "ready" || proc.exitCode !== null) {
    await stop(1_000);
    throw new Error(`${spec.name} did not start (${outcome}); last output:\n${tail()}`);
  }
  return { name: spec.name, proc, pid: proc.pid!, port, lines: () => lines, tail, stop, exited };
}
