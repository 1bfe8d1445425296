/**
 * @module infra/testing/process-tree
 * The process trees under given pids, read from /proc (Linux only): what a test needs to see that a
 * child (a Chromium, an idle worker) has ended, and what the bench sums memory and CPU over.
 */
import fs from "node:fs";

export interface StatLine {
  ppid: number;
  /** user + system CPU time of this process, in clock ticks. */
  ticks: number;
  /** user + system CPU time of its children that ended and were waited for, in clock ticks. */
  reapedTicks: number;
}

export function processStat(pid: number): StatLine | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces and parentheses: split after the last ')'.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // rest[0] is field 3 (state); ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
    return {
      ppid: Number(rest[1]),
      ticks: Number(rest[11]) + Number(rest[12]),
      reapedTicks: Number(rest[13]) + Number(rest[14]),
    };
  } catch {
    return undefined;
  }
}

/** The children of every live pid on the machine, from one pass over /proc. */
export function childrenTable(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const st = processStat(pid);
    if (!st) continue;
    let list = children.get(st.ppid);
    if (!list) {
      list = [];
      children.set(st.ppid, list);
    }
    list.push(pid);
  }
  return children;
}

/** The roots and all their descendants in `children` (deduplicated). */
export function descendants(roots: readonly number[], children: Map<number, number[]>): number[] {
  const out = new Set<number>();
  const queue = [...roots];
  while (queue.length) {
    const pid = queue.pop()!;
    if (out.has(pid)) continue;
    out.add(pid);
    for (const c of children.get(pid) ?? []) queue.push(c);
  }
  return [...out];
}

/**
 * The roots that are alive and all their descendants (deduplicated). Pass `children` to look at
 * several sets of roots with one read of /proc.
 */
export function processTrees(roots: readonly number[], children?: Map<number, number[]>): number[] {
  const alive = roots.filter((p) => p > 0 && fs.existsSync(`/proc/${p}`));
  if (alive.length === 0) return [];
  return descendants(alive, children ?? childrenTable());
}
