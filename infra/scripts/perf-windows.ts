/**
 * @module infra/scripts/perf-windows
 * Where a process's CPU goes, per category and time window, from the text of `perf script`
 * (`-F pid,tid,time,ip,sym` of a `perf record -k CLOCK_MONOTONIC -g`): the per-area scripts that
 * sort samples (gateway/scripts/run-path-perf.ts, services/payments/scripts/payout-perf.ts) name
 * their categories and windows and share the reading and the table. `perf` samples CPU, so its
 * totals agree with `process.cpuUsage`, where V8's `--cpu-prof` samples wall time.
 */
import { readFileSync } from "node:fs";

/** A stretch of the run on CLOCK_MONOTONIC, in seconds (as `perf script` prints time). */
export interface Window {
  name: string;
  from: number;
  to: number;
}

/** The category a stack falls in (frames leaf first): first match, else "other". */
export function firstMatch(categories: readonly (readonly [string, RegExp])[], frames: readonly string[]): string {
  return frames.map((f) => categories.find(([, re]) => re.test(f))?.[0]).find((c) => c) ?? "other";
}

/**
 * Prints µs a call per category and window for the process with most samples inside the windows
 * (the one measured; its children have pids of their own): one row per name in `rows`, then a total.
 */
export function printPerfTable(opts: {
  scriptText: string;
  windows: readonly Window[];
  categorize: (frames: readonly string[]) => string;
  rows: readonly string[];
  callsPerWindow: number;
  hz: number;
  digits: number;
}): void {
  const byPid = new Map<string, Map<string, Map<string, number>>>();
  for (const block of readFileSync(opts.scriptText, "utf8").split("\n\n")) {
    const lines = block.trim().split("\n");
    const head = lines[0]?.match(/^\s*(\d+)\/\d+\s+([\d.]+):/);
    if (!head) continue;
    const at = Number(head[2]);
    const window = opts.windows.find((w) => at >= w.from && at <= w.to);
    if (!window) continue;
    const category = opts.categorize(lines.slice(1));
    const pid = byPid.get(head[1]!) ?? new Map<string, Map<string, number>>();
    byPid.set(head[1]!, pid);
    const counts = pid.get(window.name) ?? new Map<string, number>();
    pid.set(window.name, counts);
    counts.set(category, (counts.get(category) ?? 0) + 1);
  }
  const sum = (c: Map<string, number>) => [...c.values()].reduce((a, b) => a + b, 0);
  const total = (m: Map<string, Map<string, number>>) => [...m.values()].reduce((s, c) => s + sum(c), 0);
  const measured = [...byPid.values()].sort((a, b) => total(b) - total(a))[0];
  if (!measured) throw new Error("no samples inside the windows");

  const usPerSample = 1e6 / opts.hz / opts.callsPerWindow;
  const names = opts.windows.map((w) => w.name);
  const row = (label: string, count: (c: Map<string, number>) => number) =>
    `| ${label} | ${names.map((n) => (count(measured.get(n) ?? new Map()) * usPerSample).toFixed(opts.digits)).join(" | ")} |`;
  console.log(`| µs a call | ${names.join(" | ")} |`);
  console.log(`|---|${names.map(() => "---:").join("|")}|`);
  for (const name of opts.rows) console.log(row(name, (c) => c.get(name) ?? 0));
  console.log(row("**total**", sum));
}
