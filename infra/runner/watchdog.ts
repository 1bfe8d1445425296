/**
 * @module infra/runner/watchdog
 * A tiny detached process that cleans up after a runner that died without stopping its stack
 * (SIGKILL, crash, a test runner killing its worker). The runner keeps a pipe to its standard
 * input and writes `+<pid> <SIGNAL>` when it starts a child (each child leads its own process
 * group) and `-<pid>` when the child is gone, and `dir <path>` for a temporary directory. When
 * the pipe closes (the runner exited, however it exited) the watchdog sends each remaining group
 * its stop signal, SIGKILL after 3 s, then removes the registered directories.
 *
 * Run by {@link ./supervisor.ts}; not meant to be started by hand.
 */
import fs from "node:fs";
import readline from "node:readline";

const children = new Map<number, NodeJS.Signals>();
const dirs = new Set<string>();

function finish(): never {
  for (const dir of dirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  process.exit(0);
}

function signalGroup(pid: number, sig: NodeJS.Signals | number): void {
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (line.startsWith("dir ")) {
    dirs.add(line.slice(4));
    return;
  }
  if (line.startsWith("-dir ")) {
    dirs.delete(line.slice(5));
    return;
  }
  const m = /^([+-])(\d+)(?:\s+(\w+))?/.exec(line.trim());
  if (!m) return;
  const pid = Number(m[2]);
  if (m[1] === "+") children.set(pid, (m[3] as NodeJS.Signals | undefined) ?? "SIGTERM");
  else children.delete(pid);
});

rl.on("close", () => {
  if (children.size === 0) finish();
  for (const [pid, sig] of children) signalGroup(pid, sig);
  const deadline = Date.now() + 3000;
  const timer = setInterval(() => {
    const left = [...children.keys()].filter(alive);
    if (left.length === 0 || Date.now() > deadline) {
      for (const pid of left) signalGroup(pid, "SIGKILL");
      clearInterval(timer);
      finish();
    }
  }, 100);
});

// Never let a terminal's Ctrl-C take the watchdog down before it has done its job.
process.on("SIGINT", () => {});
process.on("SIGHUP", () => {});
