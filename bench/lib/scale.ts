/**
 * @module bench/lib/scale
 * `npm run bench -- --scale` (issue 30): instead of the throughput groups, the parts that each seed
 * one tenant to growing row counts and time one cost at each (bench/lib/scale-curve.ts), so the docs
 * show which costs stay flat as a tenant's history grows. Saves the raw run in
 * `.gantry/bench/results/`, then writes the `bench:scale` block of docs/benchmarks.md and
 * docs/benchmarks-scale.svg (scale-report.ts), or prints the block with `--no-write`.
 * A part that fails is reported as failed and the others still run.
 */
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../../infra/runner/stack.ts";
import { gitDescribe } from "./gantry.ts";
import { machine } from "./machine.ts";
import type { ScalePart } from "./scale-curve.ts";
import { renderScaleMarkdown, SCALE_CHART, type ScaleReport, writeScaleDoc } from "./scale-report.ts";
import { contactsScale } from "./scale-contacts.ts";
import { keysScale } from "./scale-keys.ts";
import { memoryScale } from "./scale-memory.ts";
import { receiptsScale } from "./scale-trust.ts";

/** The parts `--scale-parts` names, in the order they run by default. */
export const SCALE_PARTS: Record<string, ScalePart> = {
  receipts: receiptsScale,
  contacts: contactsScale,
  keys: keysScale,
  memory: memoryScale,
};

export interface ScaleCommand {
  sizes: number[];
  parts: string[];
  write: boolean;
  /** Also write the raw run here. */
  json?: string;
  /** Don't measure: render this saved run. */
  render?: string;
  command: string;
  log: (line: string) => void;
}

export async function runScale(
  sizes: number[],
  parts: string[],
  log: (line: string) => void,
  command: string,
): Promise<ScaleReport> {
  const t0 = performance.now();
  const report: ScaleReport = {
    date: new Date().toISOString(),
    command,
    commit: await gitDescribe(),
    machine: machine(),
    sizes,
    parts,
    curves: [],
    failed: [],
    partSec: {},
    totalSec: 0,
  };
  for (const name of parts) {
    const t = performance.now();
    log(`scale part ${name}: sizes ${sizes.map((n) => n.toLocaleString("en-US")).join(", ")}`);
    try {
      report.curves.push(...(await SCALE_PARTS[name]!({ sizes, log: (l) => log(`  ${l}`) })));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      log(`  FAILED: ${err instanceof Error ? (err.stack ?? why) : why}`);
      report.failed.push({ part: name, why: why.split("\n")[0]! });
    }
    report.partSec[name] = (performance.now() - t) / 1000;
  }
  report.totalSec = (performance.now() - t0) / 1000;
  return report;
}

/** The whole `--scale` / `--render-scale` command; the exit code (1 when a part failed). */
export async function scaleCommand(c: ScaleCommand): Promise<number> {
  let report: ScaleReport;
  if (c.render) report = JSON.parse(fs.readFileSync(path.resolve(c.render), "utf8")) as ScaleReport;
  else {
    report = await runScale(c.sizes, c.parts, c.log, c.command);
    const dir = path.join(REPO_ROOT, ".gantry", "bench", "results");
    fs.mkdirSync(dir, { recursive: true });
    const raw = JSON.stringify(report, null, 2);
    const file = path.join(dir, `scale-${report.date.replace(/[:.]/g, "-")}.json`);
    fs.writeFileSync(file, raw);
    if (c.json) fs.writeFileSync(path.resolve(c.json), raw);
    c.log(`raw results: ${path.relative(process.cwd(), file)}`);
  }
  if (c.write) {
    writeScaleDoc(path.join(REPO_ROOT, "docs", "benchmarks.md"), path.join(REPO_ROOT, "docs", SCALE_CHART), report);
    c.log(`wrote the bench:scale block of docs/benchmarks.md and docs/${SCALE_CHART}`);
  } else process.stdout.write(`\n${renderScaleMarkdown(report, SCALE_CHART)}\n`);
  return report.failed.length ? 1 : 0;
}
