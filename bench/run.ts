/**
 * @module bench/run
 * `npm run bench`: Gantry side by side with the machine's ceiling and with express-gateway, in one
 * bounded run on this machine, written to docs/benchmarks.md (+ docs/benchmarks.svg).
 *
 * Targets, each measured with autocannon on loopback with the same connections and duration:
 *   ceiling          bare node:http server, fixed ~100-byte JSON (bench/servers/ceiling.ts)
 *   express-gateway  express-gateway 1.16: key-auth + rate-limit (delayMs 0) + proxy to the ceiling server
 *   passthrough      Gantry's HTTP → gRPC hop alone (bench/servers/passthrough.ts), on the hop ability and key.inspect
 *   gantry           the real gateway, full policy chain (auth, scope, rate limit set high, validation,
 *                    audit, metrics) on gantry.about, an unwired ability (hop + 501) and the wired
 *                    abilities that answer 200 (key.inspect, contact.get, contact.create, memory.search)
 *   scaleout         contact.get through 2 gateway processes and 2 workspace replicas (Redis rate
 *                    limits, round robin over the replicas) vs 1 gateway and 1 replica, interleaved,
 *                    with CPU by process (bench/lib/scaleout.ts)
 * plus the cold start of `npm start`, whole-stack idle RSS, and a `--cpu-prof` profile of the gateway.
 *
 * Not in the default run (`--targets memory`, see bench/lib/memory.ts; `--targets directory`: the
 * connections service's directory toolkits, services/connections/scripts/bench-directory.ts):
 *   memory           memory.search at 1k/10k/100k memories in one collection (floor: a plain
 *                    Float32Array scan; the store's scan and the service's handler in process; the
 *                    gateway at 1 connection and under load) and memory.save throughput
 *
 * @example
 * npm run bench                                    # defaults: 10 s × 64 connections, ~3-4 min
 * npm run bench -- --duration 5 --targets ceiling,gantry:gantry.about --no-cold-start --no-write
 * npm run bench -- --targets memory                # memory.search / memory.save at 1k, 10k, 100k memories
 * npm run bench -- --scale --no-write              # costs at 1k … 1M rows of a tenant (bench/lib/scale.ts)
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { NODE_PROCESS_ARGS, REPO_ROOT } from "../infra/runner/stack.ts";
import { serviceSpec, type AreaService } from "@gantry/kit";
import { abilityById } from "@gantry/proto/catalogue";
import { startChild, type Child } from "./lib/child.ts";
import { fmtSize } from "./lib/format.ts";
import { machine } from "./lib/machine.ts";
import { mergeLoads, runLoad, type LoadResult, type LoadSpec } from "./lib/load.ts";
import { CpuMeter, RssSampler, memoryOf, settle } from "./lib/proc-stats.ts";
import { processTrees } from "../infra/testing/process-tree.ts";
import { EG_VERSION, ensureExpressGateway, startExpressGateway } from "./lib/express-gateway.ts";
import {
  call,
  gitDescribe,
  insertBenchKey,
  planWorkloads,
  startGantryStack,
  startGateway,
  startPassthrough,
  timeNpmStart,
  type Workload,
} from "./lib/gantry.ts";
import { summarizeProfile } from "./lib/profile.ts";
import { runSplitLoad, startScaleout } from "./lib/scaleout.ts";
import {
  renderMarkdown,
  renderSvg,
  renderScaleoutSvg,
  writeDoc,
  writeMemoryDoc,
  checks,
  describeFailures,
  involvedCores,
  type BenchReport,
  type TargetRow,
} from "./lib/report.ts";
import {
  Corpus,
  DEDUP_THRESHOLD,
  HALF_LIFE_DAYS,
  MEMORY_TENANT,
  SEARCH_LIMIT,
  renderMemoryMarkdown,
  seedCollection,
  timeInProcess,
  type MemoryReport,
  type MemorySizeResult,
} from "./lib/memory.ts";
import { LEXICAL_MODEL } from "../services/memory/src/embed/lexical.ts";

const HELP = `Usage: npm run bench -- [options]

  --duration <s>          measured seconds per target (default 10)
  --connections <n>       concurrent connections (default 64)
  --warmup <s>            warm-up seconds per target, discarded (default 1)
  --targets <list>        comma-separated: ceiling, express-gateway, passthrough, gantry, scaleout,
                          memory, directory, or one ability: gantry:<id>, passthrough:<id> (<id> may
                          be "hop", the unwired ability picked at run time). Default: the first five
                          groups (memory takes 3-4 minutes more at the default sizes: ask for it;
                          directory: the connections service's directory toolkits in process, search
                          p50/p99 over the whole catalogue and their start-up and RSS cost, printed).
  --memory-sizes <list>   memory group: memories per collection, one collection each
                          (default 1000,10000,100000)
  --memory-queries <n>    memory group: distinct queries timed in process per size (default 200)
  --memory-connections <n> memory group: connections of the "under load" search and save runs
                          (default 16; latency is also measured at 1 connection)
  --slices <n>            targets compared with each other (express-gateway, gantry.about and
                          contact.get; the passthrough floor and the full chain on one ability) are measured in n
                          alternating slices of duration/n seconds each (default 2), so drift on
                          the machine falls on both sides of the comparison
  --profile-duration <s>  seconds of the --cpu-prof run per profiled ability (default 6)
  --wait-quiet <s>        before each target, wait up to this long for the rest of the machine to
                          use < 0.3 cores (default 0: don't wait; the "other load" column shows it)
  --no-profile            skip the gateway CPU profile
  --no-cold-start         skip timing \`npm start\`
  --no-write              print the report instead of writing docs/benchmarks.md and docs/benchmarks.svg
  --gateway-main <file>   the gateway entry point to run (default gateway/src/main.ts): measure a
                          patched copy side by side with the same stack and key
  --json <file>           also write the raw results as JSON
  --render <file>         don't measure: write the docs from a JSON file an earlier run saved
  --scale                 instead of the groups above: seed one tenant to each --scale-sizes and time
                          one operation per curve at each (bench/lib/scale.ts; minutes at 10^6 rows;
                          not in npm test); writes the bench:scale block of docs/benchmarks.md and
                          docs/benchmarks-scale.svg (--no-write prints it; --json saves the raw run too)
  --scale-sizes <list>    rows of the tenant to measure at, ascending (default 1000,10000,100000,1000000)
  --scale-parts <list>    which parts: receipts (receipt append, inclusion and consistency proofs),
                          contacts (contact.list first, middle and deep page), keys (key auth, audit
                          inserts and reads), memory (memory.search on Postgres and Weaviate, with
                          recall@5) (default: all)
  --render-scale <file>   don't measure: write the scale block and chart from a saved --scale run
  -h, --help              this text
`;

const { values: opts } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    warmup: { type: "string", default: "1" },
    targets: { type: "string", default: "ceiling,express-gateway,passthrough,gantry,scaleout" },
    "profile-duration": { type: "string", default: "6" },
    slices: { type: "string", default: "2" },
    "wait-quiet": { type: "string", default: "0" },
    profile: { type: "boolean", default: true },
    "cold-start": { type: "boolean", default: true },
    write: { type: "boolean", default: true },
    json: { type: "string" },
    render: { type: "string" },
    "gateway-main": { type: "string", default: "gateway/src/main.ts" },
    "memory-sizes": { type: "string", default: "1000,10000,100000" },
    "memory-queries": { type: "string", default: "200" },
    "memory-connections": { type: "string", default: "16" },
    scale: { type: "boolean", default: false },
    "scale-sizes": { type: "string", default: "1000,10000,100000,1000000" },
    "scale-parts": { type: "string" },
    "render-scale": { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
  allowNegative: true,
  strict: true,
});
if (opts.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

function num(name: string, v: string, min: number, max: number): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) {
    process.stderr.write(`--${name} must be a number from ${min} to ${max} (got "${v}")\n`);
    process.exit(2);
  }
  return n;
}
const durationSec = num("duration", opts.duration, 1, 600);
const connections = Math.round(num("connections", opts.connections, 1, 4096));
const warmupSec = num("warmup", opts.warmup, 0, 60);
const profileSec = num("profile-duration", opts["profile-duration"], 1, 120);
const slicesPerPair = Math.round(num("slices", opts.slices, 1, 20));
const waitQuietSec = num("wait-quiet", opts["wait-quiet"], 0, 600);
const memorySizes = opts["memory-sizes"].split(",").map((v) => Math.round(num("memory-sizes", v.trim(), 1, 5_000_000)));
const memoryQueries = Math.round(num("memory-queries", opts["memory-queries"], 10, 100_000));
const memoryConnections = Math.round(num("memory-connections", opts["memory-connections"], 1, 4096));

const wanted = opts.targets
  .split(",")
  .map((t) => t.trim())
  .filter(Boolean);
const GROUPS = new Set(["ceiling", "express-gateway", "passthrough", "gantry", "scaleout", "memory", "directory"]);
for (const t of wanted) {
  const [g, ability] = t.split(":", 2);
  if (
    !GROUPS.has(g) ||
    (ability !== undefined && g !== "gantry" && g !== "passthrough") ||
    (ability !== undefined && ability !== "hop" && !abilityById.has(ability))
  ) {
    process.stderr.write(`unknown target "${t}"\n\n${HELP}`);
    process.exit(2);
  }
}
const wants = (group: string) => wanted.some((t) => t === group || t.startsWith(`${group}:`));
/** Abilities asked for in a group; `undefined` = the group's default set. */
const abilitiesOf = (group: string): string[] | undefined =>
  wanted.includes(group)
    ? undefined
    : wanted.filter((t) => t.startsWith(`${group}:`)).map((t) => t.slice(group.length + 1));

const log = (line: string) => process.stdout.write(`bench | ${line}\n`);
/**
 * Full-chain targets measured in alternating slices with express-gateway (their ratios to it are
 * issue 19's and issue 30's targets), in this order; contact.get under a run sits beside plain
 * contact.get, its base. Without express-gateway, RUN_PAIR alone alternates.
 */
const EG_PEERS = ["gantry.about", "contact.get", "contact.get:run", "payment.initiate", "payout.send"];
const RUN_PAIR = ["contact.get", "contact.get:run"];
const CACHE = path.join(REPO_ROOT, ".gantry", "bench");
const EG_DIR = path.join(CACHE, "express-gateway");
const MiB = 1024 * 1024;

interface Proc {
  name: string;
  pid: number;
}

/** What a target is (as its report row names it) and how to load and watch it. */
interface MeasureSpec
  extends Pick<TargetRow, "id" | "group" | "label" | "ability" | "note" | "expectStatus" | "scaleout"> {
  load: Omit<LoadSpec, "connections" | "durationSec" | "warmupSec">;
  /** Load these URLs at once instead of `load.url`, the connections split between them (scaleout). */
  splitOver?: string[];
  /** Every process involved (peak RSS, CPU, settle). */
  procs: () => Proc[];
  /** The process that speaks HTTP to the load generator. */
  front: () => number;
  processesLabel: string;
  /** Output lines printed so far by the involved processes. */
  lines: () => number;
  /** Override `--connections` / `--warmup` for this target. */
  connections?: number;
  warmupSec?: number;
  /**
   * Wait for the involved processes to go idle between the warm-up and the measured run: requests
   * the warm-up left in flight when it stopped are still executed by a slow server (16 queued
   * searches of 100 ms = 1.6 s of work) and would otherwise eat into the measured run.
   */
  settleAfterWarmup?: boolean;
}

/** One measured run of one target; an interleaved comparison merges several (toRow). */
interface Slice {
  load: LoadResult;
  times: Float64Array;
  peakRss: number;
  frontPeakRss: number;
  pssAfter: number;
  used: ReturnType<CpuMeter["stop"]>;
  lines: number;
}

async function measureSlice(spec: MeasureSpec, seconds: number, warm: number): Promise<Slice> {
  const procs = spec.procs();
  const pids = procs.map((p) => p.pid);
  const waited = await settle(pids, { maxCores: 0.1, timeoutMs: 20_000 });
  if (waited > 2_000) log(`  (waited ${(waited / 1000).toFixed(1)} s for the previous run's work to finish)`);
  if (waitQuietSec > 0) {
    const until = performance.now() + waitQuietSec * 1000;
    let other = Infinity;
    while (performance.now() < until) {
      const probe = new CpuMeter(pids);
      probe.start();
      await new Promise((r) => setTimeout(r, 1_000));
      other = probe.stop().other;
      if (other < 0.3) break;
    }
    if (other >= 0.3) log(`  (the rest of the machine still uses ${other.toFixed(2)} cores; measuring anyway)`);
  }
  // Off the load generator's thread, RSS only: see RssSampler for why.
  const sampler = new RssSampler([pids, [spec.front()]]);
  await sampler.start();
  const conns = spec.connections ?? connections;
  const run = (l: LoadSpec, t?: (sorted: Float64Array) => void) =>
    spec.splitOver ? runSplitLoad(l, spec.splitOver, t) : runLoad(l, t);
  if (warm > 0) await run({ ...spec.load, connections: conns, durationSec: warm, warmupSec: 0 });
  if (warm > 0 && spec.settleAfterWarmup) await settle(pids, { maxCores: 0.1, timeoutMs: 20_000 });
  const cpu = new CpuMeter(pids);
  const lines0 = spec.lines();
  let times: Float64Array = new Float64Array(0);
  cpu.start();
  let load: LoadResult;
  let peaks: number[];
  try {
    load = await run({ ...spec.load, connections: conns, durationSec: seconds, warmupSec: 0 }, (t) => (times = t));
  } finally {
    peaks = await sampler.stop();
  }
  const used = cpu.stop();
  // Read once the load has stopped and before anything is released (see RssSampler).
  const pssAfter = memoryOf(pids).pssBytes;
  return { load, times, peakRss: peaks[0], frontPeakRss: peaks[1], pssAfter, used, lines: spec.lines() - lines0 };
}

/** The report row of a target from its slice(s): sums, latency over every response, CPU weighted by time. */
function toRow(spec: MeasureSpec, slices: Slice[]): TargetRow {
  const procs = spec.procs();
  const load = mergeLoads(slices);
  const total = slices.reduce((t, s) => t + s.used.seconds, 0);
  const avg = (f: (s: Slice) => number) => slices.reduce((t, s) => t + f(s) * s.used.seconds, 0) / total;
  const peakRss = Math.max(...slices.map((s) => s.peakRss));
  const unexpected = describeFailures(
    spec.expectStatus,
    slices.map((s) => s.load),
  );
  const row: TargetRow = {
    id: spec.id,
    group: spec.group,
    label: spec.label,
    ability: spec.ability,
    note: spec.note,
    expectStatus: spec.expectStatus,
    load,
    peakRssBytes: peakRss,
    pssAfterBytes: slices[slices.length - 1].pssAfter,
    frontRssBytes: Math.max(...slices.map((s) => s.frontPeakRss)),
    processes: spec.processesLabel,
    cpu: {
      byProcess: procs.map((p) => ({ name: p.name, cores: avg((s) => s.used.byRoot.get(p.pid) ?? 0) })),
      loadGenerator: avg((s) => s.used.self),
      other: avg((s) => s.used.other),
    },
    logLines: slices.reduce((t, s) => t + s.lines, 0),
    unexpected,
    ...(slices.length > 1 ? { slices: slices.length } : {}),
    ...(spec.scaleout ? { scaleout: spec.scaleout } : {}),
  };
  log(
    `  ${spec.label}${slices.length > 1 ? ` (${slices.length} slices)` : ""}: ${Math.round(load.rps).toLocaleString("en-US")} req/s, p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, peak RSS ${(peakRss / MiB).toFixed(0)} MiB` +
      `, ${Math.round(involvedCores(row) > 0 ? load.rps / involvedCores(row) : 0).toLocaleString("en-US")} per CPU-second` +
      `${unexpected ? `, UNEXPECTED ${unexpected}` : ""}, other load ${row.cpu.other.toFixed(2)} cores`,
  );
  return row;
}

async function measure(spec: MeasureSpec): Promise<TargetRow> {
  return toRow(spec, [await measureSlice(spec, durationSec, spec.warmupSec ?? warmupSec)]);
}

/**
 * Measures targets that are compared with each other in alternating slices (A B A B …, `--slices`
 * of them, together as long as one target's run), so drift on a shared machine (other tenants,
 * frequency changes) falls on both sides of the comparison instead of on whichever ran second.
 */
async function measureInterleaved(specs: MeasureSpec[], n: number): Promise<TargetRow[]> {
  const slices = specs.map((): Slice[] => []);
  for (let i = 0; i < n; i++) {
    for (const [k, spec] of specs.entries()) {
      if (n > 1) log(`  ${spec.label}: slice ${i + 1} of ${n}`);
      slices[k].push(await measureSlice(spec, durationSec / n, i === 0 ? (spec.warmupSec ?? warmupSec) : 0));
    }
  }
  return specs.map((spec, k) => toRow(spec, slices[k]));
}

/**
 * Waits until the stack is idle in the sense its memory is measured in: no process busy (settle),
 * then long enough for what an idle stack gives back by itself — each Node process runs a
 * memory-reducing collection at its first quiet 2 s (kit/src/idle-memory.ts), Postgres' pooled
 * connections close after 10 s unused — and, after load, until the web and content services have
 * ended Chromium and every worker process of the kit's `IdleWorker` has ended (web's page reader:
 * 60 s without a page), at most `maxMs`.
 */
async function quietForMemory(pids: number[], maxMs: number): Promise<void> {
  const started = performance.now();
  await settle(pids, { maxCores: 0.1, timeoutMs: 20_000 });
  const quietFrom = performance.now();
  const endsWhenIdle = () =>
    processTrees(pids).some((pid) => {
      try {
        return (
          /chrom/i.test(fs.readFileSync(`/proc/${pid}/comm`, "utf8")) ||
          fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--idle-worker=")
        );
      } catch {
        return false;
      }
    });
  while (performance.now() - started < maxMs && (performance.now() - quietFrom < 12_000 || endsWhenIdle()))
    await new Promise((r) => setTimeout(r, 1_000));
}

/** Stops tracking a child the bench has stopped itself. */
function forget(children: Child[], c: Child): void {
  const i = children.indexOf(c);
  if (i >= 0) children.splice(i, 1);
}

const jsonPost = (key: string | undefined, input: unknown) => ({
  method: "POST" as const,
  headers: { "content-type": "application/json", ...(key ? { authorization: key } : {}) },
  body: JSON.stringify({ input }),
});

/**
 * Writes what the run measured: the side-by-side groups into the results and history blocks and the
 * chart, the memory group into its own block. A run without rows (e.g. `--targets memory`) leaves
 * the results, history and chart alone, and a run without the memory group leaves its block alone.
 */
function publish(report: BenchReport): void {
  for (const c of checks(report))
    log(
      `target: ${c.what}: ${c.measured} (wanted ${c.target})${c.met === undefined ? "" : ` → ${c.met ? "met" : "NOT met"}`}`,
    );
  const docs = path.join(REPO_ROOT, "docs");
  if (report.rows.length > 0) {
    if (opts.write) {
      fs.writeFileSync(path.join(docs, "benchmarks.svg"), renderSvg(report));
      const scaleout = renderScaleoutSvg(report);
      if (scaleout) fs.writeFileSync(path.join(docs, "benchmarks-scaleout.svg"), scaleout);
      writeDoc(path.join(docs, "benchmarks.md"), report, "benchmarks.svg");
      log(`wrote docs/benchmarks.md and docs/benchmarks.svg (${Math.round(report.totalSec)} s in all)`);
    } else {
      process.stdout.write(`\n${renderMarkdown(report, "benchmarks.svg")}\n`);
    }
  }
  if (report.memory) {
    if (opts.write) {
      writeMemoryDoc(path.join(docs, "benchmarks.md"), report.memory);
      log("wrote the memory section of docs/benchmarks.md");
    } else {
      process.stdout.write(`\n${renderMemoryMarkdown(report.memory)}\n`);
    }
  }
}

async function main(): Promise<void> {
  if (opts.render) {
    const saved = JSON.parse(fs.readFileSync(path.resolve(opts.render), "utf8")) as BenchReport;
    // Runs saved before PSS moved out of the load window carry `peakPssBytes`.
    for (const r of saved.rows as Array<TargetRow & { peakPssBytes?: number }>) r.pssAfterBytes ??= r.peakPssBytes ?? 0;
    publish(saved);
    return;
  }
  const t0 = performance.now();
  const started = new Date();
  const loadavg = os.loadavg();
  const rows: TargetRow[] = [];
  const skipped: Array<{ id: string; why: string }> = [];
  const profiles: BenchReport["profiles"] = [];
  let installSec = 0;
  let coldStart: BenchReport["coldStart"] = { benchStackSec: NaN };
  let idle: BenchReport["idle"];
  let idleAfter: BenchReport["idleAfter"];
  const children: Child[] = [];
  const stopAll = async () => {
    for (const c of children.splice(0)) await c.stop().catch(() => undefined);
  };
  process.once("SIGINT", () => {
    log("interrupted; stopping what was started");
    void stopAll().then(() => process.exit(130));
  });

  log(`duration ${durationSec} s, warm-up ${warmupSec} s, ${connections} connections; targets: ${wanted.join(", ")}`);
  if (wants("express-gateway")) installSec = await ensureExpressGateway(EG_DIR, log);

  // ---- cold start of `npm start` ---------------------------------------------------------------
  if (opts["cold-start"] && (wants("gantry") || wants("passthrough"))) {
    const dir = path.join(CACHE, "npm-start-data");
    fs.rmSync(dir, { recursive: true, force: true });
    log("timing `npm start` (empty data dir, then again with it kept)");
    const first = await timeNpmStart(dir);
    const again = await timeNpmStart(dir);
    fs.rmSync(dir, { recursive: true, force: true });
    coldStart = { npmStartFirstSec: first, npmStartRestartSec: again, benchStackSec: NaN };
    log(`  npm start: ${first.toFixed(1)} s first, ${again.toFixed(1)} s restart`);
  }

  const serverArgs = (file: string) => [path.join(import.meta.dirname, "servers", file)];

  // ---- (1) ceiling ---------------------------------------------------------------------------
  if (wants("ceiling")) {
    log("ceiling: bare node:http");
    const srv = await startChild({
      name: "ceiling",
      command: process.execPath,
      args: serverArgs("ceiling.ts"),
      readyLine: /^READY (\d+)/,
    });
    children.push(srv);
    rows.push(
      await measure({
        id: "ceiling",
        group: "ceiling",
        label: "ceiling: bare node:http",
        note: "`node:http` server answering a fixed 102-byte JSON (bench/servers/ceiling.ts): the most this machine serves from one Node process with this load generator.",
        expectStatus: 200,
        load: { url: `http://127.0.0.1:${srv.port}/v1/abilities/bench.echo`, ...jsonPost(undefined, {}) },
        procs: () => [{ name: "server", pid: srv.pid }],
        front: () => srv.pid,
        processesLabel: "the server",
        lines: () => srv.lines(),
      }),
    );
    await srv.stop();
  }

  // ---- (2) express-gateway -------------------------------------------------------------------
  let egSpec: MeasureSpec | undefined;
  let egRowAt = 0;
  let stopEg = async () => {};
  const wantsPeer = wanted.includes("gantry") || EG_PEERS.some((name) => wanted.includes(`gantry:${name}`));
  if (wants("express-gateway")) {
    log(`express-gateway ${EG_VERSION}: key-auth + rate-limit + proxy`);
    const backend = await startChild({
      name: "backend",
      command: process.execPath,
      args: serverArgs("ceiling.ts"),
      readyLine: /^READY (\d+)/,
    });
    children.push(backend);
    const eg = await startExpressGateway(EG_DIR, `http://127.0.0.1:${backend.port}`);
    children.push(eg.child);
    const load = { url: `${eg.url}/v1/abilities/bench.echo`, ...jsonPost(eg.authorization, {}) };
    const probe = await fetch(load.url, { method: "POST", headers: load.headers, body: load.body });
    await probe.arrayBuffer();
    if (probe.status !== 200) throw new Error(`express-gateway answered ${probe.status} to the bench key`);
    egSpec = {
      id: "express-gateway",
      group: "peer",
      label: `express-gateway ${EG_VERSION}`,
      note: `express-gateway ${EG_VERSION} (Express 4): \`key-auth\` (key created through its admin API) → \`rate-limit\` (max 10⁹ per minute, \`delayMs: 0\`, default key = client IP, its in-process store) → \`proxy\` to the ceiling server as backend. Node ${process.version}.`,
      expectStatus: 200,
      load,
      procs: () => [
        { name: "express-gateway", pid: eg.child.pid },
        { name: "backend", pid: backend.pid },
      ],
      front: () => eg.child.pid,
      processesLabel: "express-gateway + backend",
      lines: () => eg.child.lines() + backend.lines(),
    };
    egRowAt = rows.length;
    stopEg = async () => {
      await eg.child.stop();
      await backend.stop();
      forget(children, eg.child);
      forget(children, backend);
    };
    // Compared with its peers (EG_PEERS): measured alternating with them once the Gantry stack is up
    // (it idles meanwhile). Without any of them there is nothing to alternate with.
    if (!wantsPeer) {
      rows.push(await measure(egSpec));
      await stopEg();
      // Else the "no peer after all" fallback below measured the stopped process again: a second
      // express-gateway row of ECONNREFUSED errors at 0 req/s.
      egSpec = undefined;
    }
  }

  // ---- (3) passthrough floor and (4) full chain ------------------------------------------------
  if (wants("passthrough") || wants("gantry")) {
    log("Gantry: starting a stack (Postgres, NATS, every area service)");
    const { ts, seconds } = await startGantryStack();
    coldStart = { ...coldStart, benchStackSec: seconds };
    const stackLines = new Map<string, number>();
    const unsubscribe = ts.stack.onLine((name) => stackLines.set(name, (stackLines.get(name) ?? 0) + 1));
    const stackProcs = (): Proc[] =>
      ts.stack
        .names()
        .map((name) => ({ name, pid: ts.stack.pid(name) ?? 0 }))
        .filter((p) => p.pid > 0);
    const sumLines = (names: string[]) => names.reduce((n, name) => n + (stackLines.get(name) ?? 0), 0);
    let gw: (Child & { url: string }) | undefined;
    try {
      gw = await startGateway(ts, undefined, path.resolve(REPO_ROOT, opts["gateway-main"]));
      children.push(gw);
      log(`  stack up in ${seconds.toFixed(1)} s; gateway at ${gw.url}`);
      const key = await insertBenchKey(ts);
      const gwNow = gw;
      // The first calls after start: key resolution through the keys service, first validation.
      for (const which of ["firstCallMs", "secondCallMs"] as const) {
        const t = performance.now();
        const first = await call(gw.url, key.key, "gantry.about", {});
        coldStart[which] = performance.now() - t;
        if (first.status !== 200) log(`  gantry.about answered ${first.status} (${String(first.body.code ?? "")})`);
      }
      log(
        `  first gantry.about call ${coldStart.firstCallMs!.toFixed(0)} ms, second ${coldStart.secondCallMs!.toFixed(1)} ms`,
      );
      const allProcs = () => [{ name: "gateway", pid: gwNow.pid }, ...stackProcs()];
      const memByProcess = () => allProcs().map((p) => ({ name: p.name, rssBytes: memoryOf([p.pid]).rssBytes }));

      await quietForMemory(
        allProcs().map((p) => p.pid),
        30_000,
      );
      const idleMem = memoryOf(allProcs().map((p) => p.pid));
      idle = { rssBytes: idleMem.rssBytes, pssBytes: idleMem.pssBytes, byProcess: memByProcess() };
      log(
        `  idle stack: ${(idle.rssBytes / MiB).toFixed(0)} MiB RSS, ${(idle.pssBytes / MiB).toFixed(0)} MiB PSS over ${idleMem.pids} processes`,
      );

      // Enough single-use permits for contact.get:run at up to 4,000 req/s over its warm-up and run.
      const permits = Math.ceil((durationSec + warmupSec * (slicesPerPair + 1) + 2) * 4_000);
      const plan = await planWorkloads(gw.url, ts, key, log, { permits });
      for (const [id, why] of plan.skipped) skipped.push({ id: `gantry:${id}`, why });
      const resolve = (name: string): Workload | undefined => plan.workloads.get(name);
      const hopAbility = resolve("hop")?.ability;

      // (3) passthrough: the hop ability and key.inspect by default; (4) the full chain. An ability
      // measured both ways is measured in alternating slices (measureInterleaved), the rest alone.
      const ptSpecs = new Map<string, MeasureSpec>();
      let pt: (Child & { url: string }) | undefined;
      if (wants("passthrough")) {
        const list = abilitiesOf("passthrough") ?? ["hop", "key.inspect"];
        pt = await startPassthrough(ts, key);
        children.push(pt);
        const ptNow = pt;
        for (const name of list) {
          const w = resolve(name) ?? (name === hopAbility ? resolve("hop") : undefined);
          if (!w) {
            if (!skipped.some((s) => s.id === `gantry:${name}`))
              skipped.push({ id: `passthrough:${name}`, why: "not available in this run" });
            continue;
          }
          const owner = abilityById.get(w.ability)!.service as AreaService;
          const withDb = serviceSpec(owner).database;
          const probe = await fetch(`${ptNow.url}/v1/abilities/${w.ability}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ input: w.input }),
          });
          await probe.arrayBuffer();
          if (probe.status !== w.expectStatus) {
            skipped.push({
              id: `passthrough:${w.ability}`,
              why: `answered ${probe.status}, expected ${w.expectStatus}`,
            });
            continue;
          }
          ptSpecs.set(w.ability, {
            id: `passthrough:${w.ability}`,
            group: "passthrough",
            label: `passthrough floor: ${w.ability}`,
            ability: w.ability,
            note: `bench/servers/passthrough.ts: the gateway's bare node:http ability route, request id, JSON body reader, \`Dispatcher\` (gRPC to ${owner}) and response writer; no auth, rate limit, validation, audit or metrics. ${w.note}.`,
            expectStatus: w.expectStatus,
            load: { url: `${ptNow.url}/v1/abilities/${w.ability}`, ...jsonPost(undefined, w.input) },
            procs: () => [
              { name: "passthrough", pid: ptNow.pid },
              ...stackProcs().filter((p) => p.name === owner || (withDb && p.name === "postgres")),
            ],
            front: () => ptNow.pid,
            processesLabel: `passthrough server + ${owner}${withDb ? " + Postgres" : ""}`,
            lines: () => ptNow.lines() + sumLines([owner, "postgres"]),
          });
        }
      }
      const gwSpecs = new Map<string, MeasureSpec>();
      if (wants("gantry")) {
        const list = abilitiesOf("gantry") ?? [
          "gantry.about",
          "hop",
          "key.inspect",
          "contact.get",
          "contact.get:run",
          "contact.create",
          "memory.search",
          "payment.initiate",
          "payout.send",
          "web.browse",
          "web.browse:browser",
        ];
        for (const name of list) {
          const w = resolve(name) ?? (name === hopAbility ? resolve("hop") : undefined);
          if (!w) {
            if (!skipped.some((s) => s.id === `gantry:${name}`))
              skipped.push({ id: `gantry:${name}`, why: "not planned (not in the default set)" });
            continue;
          }
          const target = w.name ?? w.ability;
          const envelopes = w.envelopes?.().map((e) => JSON.stringify(e));
          gwSpecs.set(target, {
            id: `gantry:${target}`,
            group: "gantry",
            label: `Gantry full chain: ${target}`,
            ability: w.ability,
            note: `the real gateway (${opts["gateway-main"]}): bearer key auth (cached), scope, per-key rate limit (RATE_LIMIT_DEFAULT=10⁹), body + input validation, audit record to JetStream (persisted by the keys service), metrics; ${w.note}.`,
            expectStatus: w.expectStatus,
            load: {
              url: `${gwNow.url}/v1/abilities/${w.ability}`,
              ...jsonPost(`Bearer ${key.key}`, w.input),
              ...(envelopes ? { bodies: envelopes } : {}),
            },
            ...(w.connections ? { connections: w.connections } : {}),
            procs: allProcs,
            front: () => gwNow.pid,
            processesLabel: "whole stack: gateway, 8 services, Postgres, NATS",
            lines: () => gwNow.lines() + sumLines(ts.stack.names()),
          });
        }
      }
      // In the full chain's order (gantry.about first, on a fresh gateway), then passthrough-only ones.
      const measured = new Map<string, TargetRow>();
      for (const [ability, gwSpec] of gwSpecs) {
        if (measured.has(gwSpec.id)) continue;
        const ptSpec = ptSpecs.get(ability);
        if (egSpec && EG_PEERS.includes(ability)) {
          // express-gateway is the peer of issue 19's and issue 30's targets, and contact.get the
          // base of contact.get under a run: all of them alternate, so drift on the machine falls on
          // every side of every comparison.
          const peers = EG_PEERS.flatMap((name) => {
            const peer = gwSpecs.get(name);
            return peer && !ptSpecs.has(name) && !measured.has(peer.id) ? [peer] : [];
          });
          log(`express-gateway and the full chain on ${peers.map((p) => p.id.slice(7)).join(", ")}, interleaved`);
          const [a, ...theirs] = await measureInterleaved([egSpec, ...peers], slicesPerPair);
          rows.splice(egRowAt, 0, a);
          for (const [i, peer] of peers.entries()) measured.set(peer.id, theirs[i]);
          await stopEg();
          egSpec = undefined;
        } else if (RUN_PAIR.includes(ability) && RUN_PAIR.every((name) => gwSpecs.has(name) && !ptSpecs.has(name))) {
          log("contact.get and contact.get under a run, interleaved");
          const pair = RUN_PAIR.map((name) => gwSpecs.get(name)!);
          for (const [i, r] of (await measureInterleaved(pair, slicesPerPair)).entries()) measured.set(pair[i].id, r);
        } else if (ptSpec) {
          log(`passthrough floor and full chain, interleaved: ${ability}`);
          const [a, b] = await measureInterleaved([ptSpec, gwSpec], slicesPerPair);
          measured.set(ptSpec.id, a).set(gwSpec.id, b);
        } else {
          log(`gantry full chain: ${ability}`);
          measured.set(gwSpec.id, await measure(gwSpec));
        }
      }
      if (egSpec) {
        // gantry.about was not planned after all: express-gateway alone.
        rows.splice(egRowAt, 0, await measure(egSpec));
        await stopEg();
        egSpec = undefined;
      }
      for (const ptSpec of ptSpecs.values()) {
        if (measured.has(ptSpec.id)) continue;
        log(`passthrough: ${ptSpec.ability}`);
        measured.set(ptSpec.id, await measure(ptSpec));
      }
      if (pt) {
        await pt.stop();
        forget(children, pt);
      }
      for (const spec of [...ptSpecs.values(), ...gwSpecs.values()]) rows.push(measured.get(spec.id)!);

      await quietForMemory(
        allProcs().map((p) => p.pid),
        100_000,
      );
      const after = memoryOf(allProcs().map((p) => p.pid));
      idleAfter = { rssBytes: after.rssBytes, pssBytes: after.pssBytes, byProcess: memByProcess() };
      log(
        `  idle again after the run: ${(after.rssBytes / MiB).toFixed(0)} MiB RSS (${idleAfter.byProcess.map((p) => `${p.name} ${(p.rssBytes / MiB).toFixed(0)}`).join(", ")})`,
      );

      // CPU profile of the gateway alone, in a separate run.
      if (opts.profile && wants("gantry")) {
        await gw.stop();
        forget(children, gw);
        gw = undefined;
        const profDir = path.join(CACHE, "profiles", started.toISOString().replace(/[:.]/g, "-"));
        fs.mkdirSync(profDir, { recursive: true });
        for (const name of ["gantry.about", "hop"]) {
          const w = resolve(name);
          if (!w) continue;
          log(`profiling the gateway on ${w.ability} (${profileSec} s, --cpu-prof)`);
          const file = `gateway-${w.ability}.cpuprofile`;
          const pg = await startGateway(
            ts,
            `--cpu-prof --cpu-prof-dir=${profDir} --cpu-prof-name=${file}`,
            path.resolve(REPO_ROOT, opts["gateway-main"]),
          );
          children.push(pg);
          const spec: LoadSpec = {
            url: `${pg.url}/v1/abilities/${w.ability}`,
            ...jsonPost(`Bearer ${key.key}`, w.input),
            connections,
            durationSec: profileSec,
            warmupSec: 0,
          };
          if (warmupSec > 0) await runLoad({ ...spec, durationSec: warmupSec });
          const fromUs = Number(process.hrtime.bigint() / 1000n);
          await runLoad(spec);
          const toUs = Number(process.hrtime.bigint() / 1000n);
          await pg.stop(15_000);
          forget(children, pg);
          const full = path.join(profDir, file);
          if (!fs.existsSync(full)) {
            log(`  no profile written at ${full}`);
            continue;
          }
          const summary = summarizeProfile(full, REPO_ROOT, { fromUs, toUs });
          profiles.push({ target: `gantry:${w.ability}`, summary });
          log(
            `  busy ${(summary.busy * 100).toFixed(0)}%; top: ${summary.topSelf
              .slice(0, 5)
              .map((f) => `${f.name} ${(f.share * 100).toFixed(1)}%`)
              .join(", ")}`,
          );
          log(`  profile: ${path.relative(process.cwd(), full)}`);
        }
      }
    } finally {
      unsubscribe();
      if (gw) await gw.stop();
      await stopAll();
      await ts.stop();
    }
  }
  await stopAll();

  // ---- (5) scale-out: 2 gateways × 2 workspace replicas vs 1 × 1, interleaved --------------------
  if (wants("scaleout")) {
    let setup: Awaited<ReturnType<typeof startScaleout>> | undefined;
    try {
      setup = await startScaleout(log, path.resolve(REPO_ROOT, opts["gateway-main"]), children);
    } catch (err) {
      log(`skip scaleout: ${(err as Error).message}`);
      skipped.push({ id: "scaleout", why: (err as Error).message.split("\n")[0] });
    }
    if (setup) {
      try {
        log("scale-out: contact.get, interleaved");
        const specs = setup.targets.map(
          (t): MeasureSpec => ({
            id: t.id,
            group: "scaleout",
            label: t.label,
            ability: "contact.get",
            note: t.note,
            expectStatus: 200,
            scaleout: t.shape,
            load: { url: t.urls[0], ...jsonPost(t.authorization, t.input) },
            splitOver: t.urls,
            procs: t.procs,
            front: t.front,
            processesLabel: t.processesLabel,
            lines: t.lines,
          }),
        );
        rows.push(...(await measureInterleaved(specs, slicesPerPair)));
      } finally {
        await setup.stop();
      }
    }
  }

  // ---- (6) memory: search at 1k/10k/100k memories, save throughput -----------------------------
  let memory: MemoryReport | undefined;
  if (wants("memory")) memory = await memoryGroup(children);

  // ---- (7) directory: the connections service's directory toolkits (issue 33), in process ---------
  if (wants("directory")) {
    // Its own process, so its RSS figures are its own (services/connections/scripts/bench-directory.ts),
    // with the Node options every service runs with (a capped young generation, the idle collection):
    // without them its young generation grew to 64 MiB a semi-space, which the service's cannot.
    const out = execFileSync(
      process.execPath,
      [...NODE_PROCESS_ARGS, path.join(REPO_ROOT, "services/connections/scripts/bench-directory.ts")],
      { encoding: "utf8" },
    );
    for (const line of out.trim().split("\n")) log(`directory: ${line}`);
  }

  const report: BenchReport = {
    date: started.toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    commit: await gitDescribe(),
    machine: machine(loadavg),
    options: { durationSec, connections, warmupSec },
    rows,
    skipped,
    coldStart,
    idle,
    idleAfter,
    profiles,
    expressGateway: { version: EG_VERSION, installSec },
    totalSec: (performance.now() - t0) / 1000,
    ...(memory
      ? {
          memory: {
            ...memory,
            command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
            commit: await gitDescribe(),
          },
        }
      : {}),
  };

  const resultsDir = path.join(CACHE, "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const raw = JSON.stringify(report, null, 2);
  const rawFile = path.join(resultsDir, `${started.toISOString().replace(/[:.]/g, "-")}.json`);
  fs.writeFileSync(rawFile, raw);
  if (opts.json) fs.writeFileSync(path.resolve(opts.json), raw);
  log(`raw results: ${path.relative(process.cwd(), rawFile)}`);
  publish(report);
}

/**
 * The memory group (bench/lib/memory.ts): its own stack and gateway; per size, one collection seeded
 * in bulk, then the in-process timings (floor, store scan, handler), the gateway at 1 connection and
 * under load, and memory.save under load.
 */
async function memoryGroup(children: Child[]): Promise<MemoryReport> {
  const t0 = performance.now();
  const date = new Date().toISOString();
  const loadavg = os.loadavg();
  log(
    `memory: starting a stack (sizes ${memorySizes.map(fmtSize).join(", ")}; ${memoryQueries} queries; ${memoryConnections} connections under load)`,
  );
  const { ts, seconds } = await startGantryStack();
  const stackLines = new Map<string, number>();
  const unsubscribe = ts.stack.onLine((name) => stackLines.set(name, (stackLines.get(name) ?? 0) + 1));
  const sizes: MemorySizeResult[] = [];
  let gw: (Child & { url: string }) | undefined;
  try {
    gw = await startGateway(ts, undefined, path.resolve(REPO_ROOT, opts["gateway-main"]));
    children.push(gw);
    const gwNow = gw;
    log(`  stack up in ${seconds.toFixed(1)} s; gateway at ${gw.url}`);
    const collections = memorySizes.map((n) => `mem-${fmtSize(n)}`);
    const key = await ts.insertKey({ tenant: MEMORY_TENANT, name: "bench-memory", scopes: ["*"], collections });
    const allProcs = (): Proc[] => [
      { name: "gateway", pid: gwNow.pid },
      ...ts.stack
        .names()
        .map((name) => ({ name, pid: ts.stack.pid(name) ?? 0 }))
        .filter((p) => p.pid > 0),
    ];
    const lines = () => gwNow.lines() + [...stackLines.values()].reduce((a, b) => a + b, 0);
    const url = (ability: string) => `${gwNow.url}/v1/abilities/${ability}`;
    const post = (bodies: string[]) => ({
      method: "POST" as const,
      headers: { "content-type": "application/json", authorization: `Bearer ${key.key}` },
      bodies,
    });

    for (const [i, size] of memorySizes.entries()) {
      const collection = collections[i];
      log(`memory ${fmtSize(size)}: seeding ${size.toLocaleString("en-US")} memories into ${collection}`);
      const seeded = await seedCollection(ts.db, collection, size, 1_000 + i);
      log(`  seeded: embedding ${seeded.embedSec.toFixed(1)} s, inserting ${seeded.insertSec.toFixed(1)} s`);
      const qc = new Corpus(2_000 + i);
      const queries = Array.from({ length: memoryQueries }, (_, j) =>
        qc.queryFor(seeded.sample[(j * 7919) % seeded.sample.length]),
      );

      // The memory service loads the partition on its first search.
      const t = performance.now();
      const first = await call(gwNow.url, key.key, "memory.search", {
        query: queries[0],
        collection,
        limit: SEARCH_LIMIT,
      });
      const gatewayColdMs = performance.now() - t;
      if (first.status !== 200)
        throw new Error(`memory.search answered ${first.status}: ${JSON.stringify(first.body).slice(0, 300)}`);
      log(`  first search through the gateway (partition load): ${gatewayColdMs.toFixed(0)} ms`);

      log(`  in process: floor, store scan, memorySearch over ${queries.length} queries`);
      const inProcess = await timeInProcess(ts.db, seeded, queries, 1);
      log(
        `  floor p50 ${inProcess.floor.p50.toFixed(3)} ms, store ${inProcess.store.p50.toFixed(3)} ms, in-service ${inProcess.service.p50.toFixed(3)} ms ` +
          `(${(inProcess.service.p50 / inProcess.floor.p50).toFixed(2)}× the floor); partition load ${inProcess.coldLoadMs.toFixed(0)} ms; same top hits: ${inProcess.sameTopIds}`,
      );
      (seeded as { matrix: Float32Array | undefined }).matrix = undefined; // let it go

      const searchBodies = queries.map((query) =>
        JSON.stringify({ input: { query, collection, limit: SEARCH_LIMIT } }),
      );
      const searchRow = (conns: number) =>
        measure({
          id: `memory:search:${size}:${conns}`,
          group: "gantry",
          label: `memory.search, ${fmtSize(size)} memories, ${conns} connection${conns === 1 ? "" : "s"}`,
          ability: "memory.search",
          note: `the real gateway and memory service; ${queries.length} queries in turn; collection of ${size} memories`,
          expectStatus: 200,
          load: { url: url("memory.search"), ...post(searchBodies) },
          procs: allProcs,
          front: () => gwNow.pid,
          processesLabel: "whole stack: gateway, 8 services, Postgres, NATS",
          lines,
          connections: conns,
          settleAfterWarmup: true,
        });
      log(`  gateway, 1 connection`);
      const gateway1 = await searchRow(1);
      log(`  gateway, ${memoryConnections} connections`);
      const gatewayLoad = await searchRow(memoryConnections);
      const memoryPid = ts.stack.pid("memory") ?? 0;
      const serviceRssBytes = memoryOf([memoryPid]).rssBytes;

      // memory.save with fresh texts (another seed than the collection's), dedup on.
      const sc = new Corpus(3_000 + i);
      const saveBodies = Array.from({ length: 20_000 }, () =>
        JSON.stringify({ input: { text: sc.text(), collection, metadata: { kind: "note", source: "bench" } } }),
      );
      for (let w = 0; w < 20; w++)
        await call(gwNow.url, key.key, "memory.save", JSON.parse(saveBodies[saveBodies.length - 1 - w]).input); // warm-up, off the measured texts
      log(`  memory.save, ${memoryConnections} connections`);
      let created = 0;
      let deduplicated = 0;
      const saveRow = await measure({
        id: `memory:save:${size}`,
        group: "gantry",
        label: `memory.save into ${fmtSize(size)} memories`,
        ability: "memory.save",
        note: `the real gateway and memory service; a fresh text per request; dedup at cosine ≥ ${DEDUP_THRESHOLD}`,
        expectStatus: 200,
        load: {
          url: url("memory.save"),
          ...post(saveBodies),
          onResponse: (status, body) => {
            if (status !== 200) return;
            if (/"deduplicated":\s*true/.test(body)) deduplicated++;
            else if (/"action":\s*"created"/.test(body)) created++;
          },
        },
        procs: allProcs,
        front: () => gwNow.pid,
        processesLabel: "whole stack: gateway, 8 services, Postgres, NATS",
        lines,
        connections: memoryConnections,
        warmupSec: 0,
      });
      log(`  saves: ${created} created, ${deduplicated} deduplicated (of ${saveRow.load.responses} responses)`);
      sizes.push({
        size,
        collection,
        seed: { embedSec: seeded.embedSec, insertSec: seeded.insertSec },
        inProcess,
        gatewayColdMs,
        gateway1,
        gatewayLoad,
        save: { ...saveRow, created, deduplicated },
        serviceRssBytes,
      });
    }
  } finally {
    unsubscribe();
    if (gw) {
      await gw.stop();
      forget(children, gw);
    }
    await ts.stop();
  }
  return {
    date,
    command: "",
    commit: "",
    machine: {
      nproc: os.availableParallelism(),
      cpu: os.cpus()[0]?.model.trim() ?? "unknown",
      node: process.version,
      loadavg,
    },
    sizes,
    queries: memoryQueries,
    rounds: 1,
    limit: SEARCH_LIMIT,
    halfLifeDays: HALF_LIFE_DAYS,
    dedupThreshold: DEDUP_THRESHOLD,
    embedder: LEXICAL_MODEL,
    loadConnections: memoryConnections,
    durationSec,
    warmupSec,
    totalSec: (performance.now() - t0) / 1000,
  };
}

/** `--scale` / `--render-scale`: the scale curves instead of the groups (bench/lib/scale.ts). */
async function scale(): Promise<number> {
  const { SCALE_PARTS, scaleCommand } = await import("./lib/scale.ts");
  const sizes = opts["scale-sizes"].split(",").map((v) => Math.round(num("scale-sizes", v.trim(), 2, 100_000_000)));
  const parts = opts["scale-parts"]?.split(",").map((p) => p.trim()) ?? Object.keys(SCALE_PARTS);
  const unknown = parts.filter((p) => !(p in SCALE_PARTS));
  if (unknown.length || sizes.some((n, i) => i > 0 && n <= sizes[i - 1])) {
    process.stderr.write(
      `${unknown.length ? `unknown scale part "${unknown.join(", ")}"` : "--scale-sizes must ascend"}\n\n${HELP}`,
    );
    return 2;
  }
  const command = `npm run bench -- ${process.argv.slice(2).join(" ")}`;
  return scaleCommand({ sizes, parts, write: opts.write, json: opts.json, render: opts["render-scale"], command, log });
}

(opts.scale || opts["render-scale"] ? scale() : main().then(() => 0)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
