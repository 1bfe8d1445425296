/**
 * @module web/test/processes
 * Counting the Chromium processes this test process started (its descendants), to show that pages
 * killed at their deadline and a closed pool leave none behind.
 */
import { execFileSync } from "node:child_process";

/** Descendant processes of `root` whose command line mentions chromium, by role (`browser`, `renderer`, …). */
export function chromiumDescendants(root = process.pid): { pid: number; type: string }[] {
  const out = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" });
  const rows = out
    .split("\n")
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const children = new Map<number, typeof rows>();
  for (const r of rows) children.set(r.ppid, [...(children.get(r.ppid) ?? []), r]);
  const found: { pid: number; type: string }[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (/chrom/i.test(c.args)) found.push({ pid: c.pid, type: /--type=([\w-]+)/.exec(c.args)?.[1] ?? "browser" });
      walk(c.pid);
    }
  };
  walk(root);
  return found;
}
