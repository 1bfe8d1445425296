/**
 * @module bench/lib/report
 * Turns one bench run into Markdown (tables, target checks, profile summary) and an SVG bar chart,
 * and writes them into docs/benchmarks.md between markers, so the hand-written analysis around
 * them survives re-runs. Each run also appends one line to the history table (before/after).
 */
import fs from "node:fs";
import type { LoadResult } from "./load.ts";
import type { ProfileSummary } from "./profile.ts";
import { renderMemoryMarkdown, type MemoryReport } from "./memory-report.ts";
import { fmtInt, fmtX } from "./format.ts";

export type Group = "ceiling" | "peer" | "passthrough" | "gantry" | "scaleout";

export interface TargetRow {
  /** `ceiling`, `express-gateway`, `passthrough:<ability>`, `gantry:<ability>` */
  id: string;
  group: Group;
  label: string;
  ability?: string;
  note: string;
  expectStatus: number;
  load: LoadResult;
  /** Peak summed RSS of every process involved (see `processes`). */
  peakRssBytes: number;
  /** Summed PSS, read once right after the measured run (not sampled during it: see RssSampler). */
  pssAfterBytes: number;
  /** Peak RSS of the process that speaks HTTP to the client. */
  frontRssBytes: number;
  processes: string;
  /**
   * CPU cores used during the measured run: by process (the HTTP front process first), by the load
   * generator, and by the rest of the machine (other work, and kernel network time no process is billed for).
   */
  cpu: { byProcess: Array<{ name: string; cores: number }>; loadGenerator: number; other: number };
  /** Output lines the involved processes printed during the measured run. */
  logLines: number;
  /** Statuses other than the expected one, e.g. "12 × 503". */
  unexpected?: string;
  /** Measured in this many slices, alternating with the target it is compared with (`--slices`). */
  slices?: number;
  /** Scale-out rows (`scaleout:<gateways>x<replicas>`): how many gateway processes and service replicas. */
  scaleout?: { gateways: number; replicas: number };
}

export interface BenchReport {
  date: string;
  command: string;
  commit: string;
  machine: { nproc: number; cpu: string; memGiB: number; node: string; loadavg: number[] };
  options: { durationSec: number; connections: number; warmupSec: number };
  rows: TargetRow[];
  skipped: Array<{ id: string; why: string }>;
  coldStart: {
    npmStartFirstSec?: number;
    npmStartRestartSec?: number;
    benchStackSec: number;
    /** Latency of the first and second `gantry.about` calls after the gateway answered /health. */
    firstCallMs?: number;
    secondCallMs?: number;
  };
  idle: { rssBytes: number; pssBytes: number; byProcess: Array<{ name: string; rssBytes: number }> } | undefined;
  idleAfter: { rssBytes: number; pssBytes: number; byProcess: Array<{ name: string; rssBytes: number }> } | undefined;
  profiles: Array<{ target: string; summary: ProfileSummary }>;
  expressGateway: { version: string; installSec: number };
  totalSec: number;
  /** The memory group (`--targets memory`), written to its own block. */
  memory?: MemoryReport;
}

const MiB = 1024 * 1024;
const fmtMs = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : "–");
const fmtPct = (n: number) => `${(n * 100).toFixed(n < 0.1 ? 1 : 0)}%`;
const fmtMiB = (b: number) => (b > 0 ? (b / MiB).toFixed(0) : "–");
const fmtSec = (s: number) => (s >= 10 ? s.toFixed(0) : s.toFixed(1));

/** Cores used by every process involved (not the load generator). */
export function involvedCores(r: TargetRow): number {
  return r.cpu.byProcess.reduce((n, p) => n + p.cores, 0);
}

/**
 * Responses per CPU-second of the processes involved: throughput with contention from the rest
 * of the machine factored out (it still pays for cache and scheduler effects). A steadier basis
 * for comparing rows on a shared machine than raw req/s.
 */
export function perCpuSecond(r: TargetRow): number {
  const c = involvedCores(r);
  return c > 0 ? r.load.rps / c : NaN;
}

/** CPU microseconds per response in the HTTP front process (first in `byProcess`; every gateway of a scale-out row). */
export function frontMicros(r: TargetRow): number {
  const c = r.scaleout ? coresOf(r, (n) => n.startsWith("gateway")) : (r.cpu.byProcess[0]?.cores ?? 0);
  return r.load.rps > 0 ? (c / r.load.rps) * 1e6 : NaN;
}

function statuses(r: TargetRow): string {
  if (r.load.responses === 0) return `none${r.load.errors ? `, ${r.load.errors} errors` : ""}`;
  return (
    Object.entries(r.load.statuses)
      .sort((a, b) => b[1] - a[1])
      .map(([code, n]) => `${code}${Object.keys(r.load.statuses).length > 1 ? ` ×${fmtInt(n)}` : ""}`)
      .join(", ") + (r.load.errors ? `, ${r.load.errors} errors` : "")
  );
}

/**
 * What went wrong in a row's measured slices, or undefined: statuses other than `expectStatus`,
 * errors by kind, the slices they fell in when not every slice, and a slice in which no request
 * finished (its 0 req/s is then explained, not shown as a rate).
 */
export function describeFailures(expectStatus: number, slices: readonly LoadResult[]): string | undefined {
  const parts: string[] = [];
  const statusCounts: Record<string, number> = {};
  const kinds: Record<string, number> = {};
  let errors = 0;
  for (const l of slices) {
    for (const [code, n] of Object.entries(l.statuses))
      if (Number(code) !== expectStatus) statusCounts[code] = (statusCounts[code] ?? 0) + n;
    for (const [kind, n] of Object.entries(l.errorKinds ?? {})) kinds[kind] = (kinds[kind] ?? 0) + n;
    errors += l.errors;
  }
  for (const [code, n] of Object.entries(statusCounts)) parts.push(`${n} × ${code}`);
  if (errors) {
    const byKind = Object.entries(kinds)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${fmtInt(n)}`)
      .join(", ");
    parts.push(`${errors} errors${byKind ? ` (${byKind})` : ""}`);
  }
  const failing = slices.flatMap((l, i) =>
    l.errors || Object.keys(l.statuses).some((c) => Number(c) !== expectStatus) ? [i + 1] : [],
  );
  if (parts.length && slices.length > 1 && failing.length < slices.length)
    parts.push(`in slice ${failing.join(", ")} of ${slices.length}`);
  for (const [i, l] of slices.entries()) {
    if (l.responses > 0) continue;
    const where = slices.length > 1 ? `slice ${i + 1} of ${slices.length}` : "the run";
    parts.push(
      `no response in ${where} (${fmtSec(l.seconds)} s): ${l.errors ? "every request failed" : "every request was still waiting for its answer when it ended"}`,
    );
  }
  return parts.length ? parts.join("; ") : undefined;
}

export interface Check {
  what: string;
  target: string;
  measured: string;
  met: boolean | undefined;
}

export function checks(rep: BenchReport): Check[] {
  const row = (id: string) => rep.rows.find((r) => r.id === id);
  const eg = row("express-gateway");
  const about = row("gantry:gantry.about");
  const out: Check[] = [];
  if (eg && about) {
    out.push(throughputCheck("gantry.about throughput vs express-gateway", about, eg, 2));
    out.push(p99Check("gantry.about p99 vs express-gateway", about, eg, 0.5));
  }
  for (const pass of rep.rows.filter((r) => r.group === "passthrough")) {
    const full = row(`gantry:${pass.ability}`);
    if (!full) continue;
    const x = full.load.rps / pass.load.rps;
    out.push({
      what: `full chain vs passthrough floor, same ability (${pass.ability}, both hop)`,
      target: "≥ 75%",
      measured: `${fmtPct(x)} (per CPU-second: ${fmtPct(perCpuSecond(full) / perCpuSecond(pass))})`,
      met: x >= 0.75,
    });
  }
  const hopPass = rep.rows.find((r) => r.group === "passthrough");
  if (about && hopPass) {
    const x = about.load.rps / hopPass.load.rps;
    out.push({
      what: `gantry.about (no hop) vs passthrough floor on ${hopPass.ability} (one hop): not like for like`,
      target: "≥ 75%",
      measured: `${fmtPct(x)} (per CPU-second: ${fmtPct(perCpuSecond(about) / perCpuSecond(hopPass))})`,
      met: x >= 0.75,
    });
  }
  out.push(...hotPathChecks(rep));
  out.push(...issue30Checks(rep));
  const so = scaleoutPair(rep);
  if (so)
    out.push({
      what: `scale-out: contact.get, ${shapeName(so.wide)} vs ${shapeName(so.base)}`,
      target: "measured",
      measured: `${fmtX(so.wide.load.rps / so.base.load.rps)} req/s, ${fmtX(so.wide.load.p99 / so.base.load.p99)} p99; ${busyCores(so.wide).toFixed(1)} of ${rep.machine.nproc} cores busy`,
      met: undefined,
    });
  const { npmStartFirstSec: first, npmStartRestartSec: again } = rep.coldStart;
  if (again !== undefined)
    out.push({
      what: "cold start of `npm start`, data dir kept (restart)",
      target: "< 10 s",
      measured: `${again.toFixed(1)} s`,
      met: again < 10,
    });
  if (first !== undefined)
    out.push({
      what: "cold start of `npm start`, empty data dir (cluster copied from the machine's, migrations applied)",
      target: "< 10 s",
      measured: `${first.toFixed(1)} s`,
      met: first < 10,
    });
  return out;
}

/** `r`'s throughput as a multiple of `base`'s (and per CPU-second), wanted at least `atLeast`. */
function throughputCheck(what: string, r: TargetRow, base: TargetRow, atLeast: number): Check {
  const x = r.load.rps / base.load.rps;
  return {
    what,
    target: `≥ ${atLeast}×`,
    measured: `${fmtX(x)} (per CPU-second: ${fmtX(perCpuSecond(r) / perCpuSecond(base))})`,
    met: x >= atLeast,
  };
}

/** `r`'s p99 as a multiple of `base`'s, wanted at most `atMost`. */
function p99Check(what: string, r: TargetRow, base: TargetRow, atMost: number): Check {
  const p = r.load.p99 / base.load.p99;
  return {
    what,
    target: `≤ ${atMost}×`,
    measured: `${fmtX(p)} (${fmtMs(r.load.p99)} vs ${fmtMs(base.load.p99)} ms)`,
    met: p <= atMost,
  };
}

/** Issue 19's targets: real abilities against the peer and against gantry.about, service CPU, idle RSS. */
function hotPathChecks(rep: BenchReport): Check[] {
  const row = (id: string) => rep.rows.find((r) => r.id === id);
  const eg = row("express-gateway");
  const about = row("gantry:gantry.about");
  const get = row("gantry:contact.get");
  const out: Check[] = [];
  if (eg && get) {
    const what = "contact.get (full chain: one hop, one Postgres read) throughput vs express-gateway";
    out.push(throughputCheck(what, get, eg, 2));
    out.push(p99Check("contact.get p99 vs express-gateway", get, eg, 0.5));
  }
  if (about && get) {
    const x = get.load.rps / about.load.rps;
    out.push({
      what: "contact.get throughput vs gantry.about (no hop)",
      target: "≥ 60%",
      measured: fmtPct(x),
      met: x >= 0.6,
    });
  }
  for (const id of ["contact.create", "key.inspect"]) {
    const r = row(`gantry:${id}`);
    if (eg && r) out.push(throughputCheck(`${id} throughput vs express-gateway`, r, eg, 1));
  }
  if (get) {
    const named = (name: string) => (n: string) => n === name || n.startsWith(`${name}-`);
    const us = microsPerCall(get, named("workspace"));
    out.push({
      what: "workspace service CPU per contact.get (a by-id read), from the process's CPU time",
      target: "≤ 150 µs",
      measured: `${us.toFixed(0)} µs (Postgres: ${microsPerCall(get, named("postgres")).toFixed(0)} µs, gateway: ${frontMicros(get).toFixed(0)} µs)`,
      met: us <= 150,
    });
  }
  if (rep.idle) {
    const mib = rep.idle.rssBytes / MiB;
    out.push({
      what: `whole stack idle RSS after start (${rep.idle.byProcess.length} processes)`,
      target: "≤ 1024 MiB",
      measured: `${mib.toFixed(0)} MiB (PSS ${fmtMiB(rep.idle.pssBytes)} MiB)`,
      met: mib <= 1024,
    });
    if (rep.idleAfter) {
      const growth = rep.idleAfter.rssBytes / rep.idle.rssBytes - 1;
      out.push({
        what: "whole stack RSS once quiet again after the load, vs idle before it",
        target: "≤ +25% (or explained)",
        measured: `${growth >= 0 ? "+" : "−"}${Math.abs(growth * 100).toFixed(0)}% (${fmtMiB(rep.idleAfter.rssBytes)} MiB; per process under *Memory and CPU*)`,
        met: growth <= 0.25,
      });
    }
  }
  return out;
}

/** Issue 30's web.browse target, on the bench's article page (bench/lib/gantry.ts, `benchPage`). */
export const WEB_BROWSE_PAGES_PER_SEC = 200;

/**
 * Issue 30's targets: the guarantees at plain-call speed. Each ratio is between rows measured in
 * alternating slices of one run (contact.get under a run beside plain contact.get; the payments
 * beside express-gateway); a side with failed requests or no response makes its ratio say so
 * instead of judging it.
 */
function issue30Checks(rep: BenchReport): Check[] {
  const row = (id: string) => rep.rows.find((r) => r.id === id);
  const eg = row("express-gateway");
  const get = row("gantry:contact.get");
  const run = row("gantry:contact.get:run");
  const out: Check[] = [];
  if (get && run) {
    const check = throughputCheck(
      "contact.get under a trust run (permit + signed receipt) vs plain contact.get",
      run,
      get,
      0.5,
    );
    const trust = microsPerCall(run, (n) => n === "trust");
    out.push(
      withValidity({ ...check, measured: `${check.measured}; trust CPU ${fmtInt(trust)} µs per call` }, run, get),
    );
  }
  for (const id of ["payment.initiate", "payout.send"]) {
    const r = row(`gantry:${id}`);
    if (eg && r)
      out.push(withValidity(throughputCheck(`${id} (sandbox) throughput vs express-gateway`, r, eg, 1), r, eg));
  }
  const web = row("gantry:web.browse");
  if (web) {
    const cpu = microsPerCall(web, (n) => n === "web" || n.startsWith("web-"));
    out.push(
      withValidity(
        {
          what: "web.browse, HTTP path, the bench's article page (size under *What each target is*)",
          target: `≥ ${WEB_BROWSE_PAGES_PER_SEC} pages/s`,
          measured: `${fmtInt(web.load.rps)} pages/s (web CPU ${fmtMs(cpu / 1000)} ms per page)`,
          met: web.load.rps >= WEB_BROWSE_PAGES_PER_SEC,
        },
        web,
      ),
    );
  }
  return out;
}

/** Other work above this many cores during a row leaves its processes less than the machine, unevenly. */
const BUSY_OTHER_CORES = 0.5;

/**
 * Names the other load when the rest of the machine was busy during a row: cores are then shared
 * by process count, so a one-process peer (express-gateway) gets a smaller share than Gantry's
 * dozen and req/s ratios flatter the side with more processes; per CPU-second is the figure to read.
 */
function withBusyMachine(c: Check, rows: readonly TargetRow[]): Check {
  const other = Math.max(...rows.map((r) => r.cpu.other));
  if (other < BUSY_OTHER_CORES) return c;
  return {
    ...c,
    measured: `${c.measured}; the rest of the machine used up to ${other.toFixed(2)} cores meanwhile: read per CPU-second`,
  };
}

/** Requests of a row that did not get its expected status: other statuses, connection errors, timeouts. */
function failures(r: TargetRow): number {
  const other = Object.entries(r.load.statuses).filter(([code]) => Number(code) !== r.expectStatus);
  return other.reduce((n, [, c]) => n + c, 0) + r.load.errors;
}

/**
 * A check over a row with more than 1% failed requests (or none answered) is not judged: its rate
 * counts fast failures or misses a slice, so the ratio is not what it claims. Fewer are named.
 */
function withValidity(c: Check, ...rows: TargetRow[]): Check {
  c = withBusyMachine(c, rows);
  const flagged = rows.filter((r) => r.unexpected || r.load.responses === 0);
  if (!flagged.length) return c;
  const judged = flagged.every((r) => r.load.responses > 0 && failures(r) <= 0.01 * r.load.responses);
  const what = flagged.map((r) => `${r.label} had ${r.unexpected ?? "no response"}`).join("; ");
  return judged
    ? { ...c, measured: `${c.measured}; ${what}` }
    : { ...c, measured: `${c.measured}; not judged: ${what}`, met: undefined };
}

export function renderMarkdown(rep: BenchReport, chartFile: string): string {
  const L: string[] = [];
  const ceiling = rep.rows.find((r) => r.id === "ceiling");
  const eg = rep.rows.find((r) => r.id === "express-gateway");
  const m = rep.machine;
  L.push(`Run of ${rep.date} · commit \`${rep.commit}\` · \`${rep.command}\``);
  L.push("");
  L.push(
    `Machine: ${m.nproc} cores (${m.cpu}), ${m.memGiB.toFixed(0)} GiB, Node ${m.node}, load average at start ${m.loadavg.map((x) => x.toFixed(2)).join(" / ")}. ` +
      `Each target: ${rep.options.warmupSec} s warm-up, then ${rep.options.durationSec} s measured, ${rep.options.connections} connections, autocannon on loopback (pipelining 1). Whole run: ${Math.round(rep.totalSec)} s.`,
  );
  L.push("");
  L.push(
    "> Figures are **ratios measured side by side** in one run on a small, shared 2-core machine: the load generator",
  );
  L.push("> takes one core, the servers share the other, and other work on the machine shows up as noise (the");
  L.push('> "other load" column). Compare rows within a run, not absolute numbers across machines or runs.');
  L.push("");
  L.push(`![Throughput, p99 latency and responses per CPU-second per target](${chartFile})`);
  L.push("");
  L.push("### Throughput and latency");
  L.push("");
  L.push(
    "| target | req/s | × ceiling | × express-gateway | p50 ms | p90 ms | p99 ms | p99 × express-gateway | status | bytes/response | other load (cores) |",
  );
  L.push("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
  for (const r of rep.rows) {
    L.push(
      `| ${r.label}${r.unexpected ? ` ⚠ ${r.unexpected}` : ""} | ${fmtInt(r.load.rps)} | ${ceiling ? fmtX(r.load.rps / ceiling.load.rps) : "–"} | ${eg ? fmtX(r.load.rps / eg.load.rps) : "–"} | ${fmtMs(r.load.p50)} | ${fmtMs(r.load.p90)} | ${fmtMs(r.load.p99)} | ${eg ? fmtX(r.load.p99 / eg.load.p99) : "–"} | ${statuses(r)} | ${fmtInt(r.load.bytesPerResponse)} | ${r.cpu.other.toFixed(2)} |`,
    );
  }
  L.push("");
  L.push("### Memory and CPU");
  L.push("");
  L.push(
    "Peak RSS is sampled every 250 ms from /proc (on a thread of its own, so sampling never holds up the load generator) and summed over every process involved (and their children, e.g. Postgres backends). RSS counts shared pages once per process, so the sum over-counts Postgres' shared buffers; PSS splits them. PSS is read once, right after the measured run: reading it walks each process's page tables and would stall the processes under test. " +
      "CPU is read from /proc over the measured run. *Responses per CPU-second* divides throughput by the cores the involved processes used (load generator excluded): it factors out how much CPU the rest of the machine left over, so it is the steadier comparison on a shared machine.",
  );
  L.push("");
  L.push(
    "| target | processes counted | peak RSS MiB | × ceiling | × express-gateway | PSS MiB after load | HTTP front process RSS MiB | CPU cores by process | front CPU µs/response | responses per CPU-second | × express-gateway | log lines |",
  );
  L.push("|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|");
  for (const r of rep.rows) {
    const cpu = r.cpu.byProcess
      .filter((p) => p.cores >= 0.01)
      .sort((a, b) => b.cores - a.cores)
      .map((p) => `${p.name} ${p.cores.toFixed(2)}`)
      .join(", ");
    L.push(
      `| ${r.label} | ${r.processes} | ${fmtMiB(r.peakRssBytes)} | ${ceiling ? fmtX(r.peakRssBytes / ceiling.peakRssBytes) : "–"} | ${eg ? fmtX(r.peakRssBytes / eg.peakRssBytes) : "–"} | ${fmtMiB(r.pssAfterBytes)} | ${fmtMiB(r.frontRssBytes)} | ${cpu || "–"}; load generator ${r.cpu.loadGenerator.toFixed(2)} | ${fmtInt(frontMicros(r))} | ${fmtInt(perCpuSecond(r))} | ${eg ? fmtX(perCpuSecond(r) / perCpuSecond(eg)) : "–"} | ${fmtInt(r.logLines)} |`,
    );
  }
  L.push("");
  if (rep.idle) {
    L.push(
      `Whole Gantry stack idle (gateway, ${rep.idle.byProcess.length - 1} other processes incl. Postgres and NATS, before any load, measured once quiet for 12 s, and after the run once Chromium and the web page reader had ended too): **${fmtMiB(rep.idle.rssBytes)} MiB RSS** (${fmtMiB(rep.idle.pssBytes)} MiB PSS)` +
        (rep.idleAfter
          ? `; after the run, idle again: ${fmtMiB(rep.idleAfter.rssBytes)} MiB RSS (${fmtMiB(rep.idleAfter.pssBytes)} MiB PSS).`
          : "."),
    );
    L.push("");
    L.push(
      `By process, RSS MiB before load: ${rep.idle.byProcess.map((p) => `${p.name} ${fmtMiB(p.rssBytes)}`).join(", ")}.`,
    );
    if (rep.idleAfter) {
      const before = new Map(rep.idle.byProcess.map((p) => [p.name, p.rssBytes]));
      const growth = (name: string, bytes: number) => {
        const b = before.get(name);
        return b ? ` (${bytes >= b ? "+" : "−"}${Math.abs(((bytes - b) / b) * 100).toFixed(0)}%)` : "";
      };
      L.push(
        `After, and growth: ${rep.idleAfter.byProcess.map((p) => `${p.name} ${fmtMiB(p.rssBytes)}${growth(p.name, p.rssBytes)}`).join(", ")}.`,
      );
    }
    L.push("");
  }
  L.push(...renderScaleoutMarkdown(rep, chartFile.replace(/\.svg$/, "-scaleout.svg")));
  L.push("### Cold start");
  L.push("");
  L.push("| what | seconds |");
  L.push("|---|---:|");
  if (rep.coldStart.npmStartFirstSec !== undefined)
    L.push(
      `| \`npm start\` until \`GET /health\` = 200, empty data dir (cluster copied from the machine's, migrations applied) | ${rep.coldStart.npmStartFirstSec.toFixed(1)} |`,
    );
  if (rep.coldStart.npmStartRestartSec !== undefined)
    L.push(
      `| \`npm start\` until \`GET /health\` = 200, data dir kept (a restart) | ${rep.coldStart.npmStartRestartSec.toFixed(1)} |`,
    );
  if (Number.isFinite(rep.coldStart.benchStackSec))
    L.push(
      `| bench stack (\`startStack\`, ephemeral Postgres, every service; gateway started after) | ${rep.coldStart.benchStackSec.toFixed(1)} |`,
    );
  if (rep.coldStart.firstCallMs !== undefined) {
    L.push(
      `| first \`gantry.about\` call after the gateway is healthy (key lookup, first validation) | ${(rep.coldStart.firstCallMs / 1000).toFixed(3)} |`,
    );
    L.push(`| second call | ${((rep.coldStart.secondCallMs ?? NaN) / 1000).toFixed(3)} |`);
  }
  L.push("");
  L.push("### Targets");
  L.push("");
  L.push("| target | wanted | measured | met |");
  L.push("|---|---|---|---|");
  for (const c of checks(rep))
    L.push(`| ${c.what} | ${c.target} | ${c.measured} | ${c.met === undefined ? "–" : c.met ? "yes" : "**no**"} |`);
  L.push("");
  L.push("### What each target is");
  L.push("");
  for (const r of rep.rows) {
    const sliced =
      r.slices && r.slices > 1
        ? ` Measured in ${r.slices} slices of ${fmtSec(r.load.seconds / r.slices)} s, alternating with the other side of its comparison (\`--slices\`); figures are over all slices.`
        : "";
    L.push(`- **${r.label}**: ${r.note}${sliced}`);
  }
  for (const s of rep.skipped) L.push(`- *skipped* \`${s.id}\`: ${s.why}`);
  L.push(
    `- express-gateway ${rep.expressGateway.version} was ${rep.expressGateway.installSec > 0 ? `installed by this run (${rep.expressGateway.installSec.toFixed(0)} s)` : "already installed"} in \`.gantry/bench/express-gateway/\`.`,
  );
  L.push("");
  if (rep.profiles.length) {
    L.push("### CPU profile of the gateway under load");
    L.push("");
    L.push(
      "`node --cpu-prof` on the gateway process only (a separate, shorter run; not the measured one above). Shares are of the gateway's busy (non-idle) time inside the load window.",
    );
    L.push("");
    for (const p of rep.profiles) {
      const s = p.summary;
      L.push(`#### ${p.target}: busy ${fmtPct(s.busy)} of ${s.seconds.toFixed(1)} s`);
      L.push("");
      L.push(
        `Self time by category: ${s.categories
          .filter((c) => c.share >= 0.005)
          .map((c) => `${c.category} ${fmtPct(c.share)}`)
          .join(" · ")}`,
      );
      L.push("");
      L.push("| top self time | where | category | share |");
      L.push("|---|---|---|---:|");
      for (const f of s.topSelf) L.push(`| \`${f.name}\` | ${f.where} | ${f.category} | ${fmtPct(f.share)} |`);
      L.push("");
      L.push("| our code, inclusive time | where | share |");
      L.push("|---|---|---:|");
      for (const f of s.topInclusive) L.push(`| \`${f.name}\` | ${f.where} | ${fmtPct(f.share)} |`);
      L.push("");
    }
  }
  return L.join("\n");
}

/** One line for the history table. */
export function historyRow(rep: BenchReport): string {
  const row = (id: string) => rep.rows.find((r) => r.id === id);
  const eg = row("express-gateway");
  const about = row("gantry:gantry.about");
  const pairs = rep.rows
    .filter((r) => r.group === "passthrough")
    .map((p) => {
      const full = row(`gantry:${p.ability}`);
      return full ? `${p.ability} ${fmtPct(full.load.rps / p.load.rps)}` : undefined;
    })
    .filter(Boolean)
    .join(", ");
  return `| ${rep.date.slice(0, 16).replace("T", " ")} | \`${rep.commit}\` | ${rep.options.durationSec} s × ${rep.options.connections} | ${fmtInt(row("ceiling")?.load.rps ?? NaN)} | ${fmtInt(eg?.load.rps ?? NaN)} | ${fmtInt(about?.load.rps ?? NaN)} | ${eg && about ? fmtX(about.load.rps / eg.load.rps) : "–"} | ${eg && about ? fmtX(about.load.p99 / eg.load.p99) : "–"} | ${eg && about ? fmtX(perCpuSecond(about) / perCpuSecond(eg)) : "–"} | ${pairs || "–"} | ${rep.coldStart.npmStartRestartSec?.toFixed(1) ?? "–"} s |`;
}

const HISTORY_HEAD = [
  "| date (UTC) | commit | run | ceiling req/s | express-gateway req/s | gantry.about req/s | about ÷ EG req/s | about ÷ EG p99 | about ÷ EG per CPU-second | full ÷ passthrough req/s | npm start (restart) |",
  "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|",
];

export function replaceBlock(doc: string, name: string, body: (old: string) => string): string {
  const begin = `<!-- bench:${name}:begin -->`;
  const end = `<!-- bench:${name}:end -->`;
  const i = doc.indexOf(begin);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) return `${doc.trimEnd()}\n\n${begin}\n${body("")}\n${end}\n`;
  const old = doc.slice(i + begin.length, j);
  return `${doc.slice(0, i)}${begin}\n${body(old)}\n${end}${doc.slice(j + end.length)}`;
}

const SKELETON = `# Benchmarks

\`npm run bench\` measures Gantry side by side with a bare Node server (the machine's ceiling) and
express-gateway (the peer users of Express would pick), in one run on one machine. The sections
between the \`bench:\` markers are rewritten by every run; the rest of this page is written by hand.

## Latest run

<!-- bench:results:begin -->
<!-- bench:results:end -->

## History

<!-- bench:history:begin -->
<!-- bench:history:end -->
`;

/** Writes the results block and appends to the history block of `docFile`. */
export function writeDoc(docFile: string, rep: BenchReport, chartRel: string): void {
  let doc = fs.existsSync(docFile) ? fs.readFileSync(docFile, "utf8") : SKELETON;
  doc = replaceBlock(doc, "results", () => renderMarkdown(rep, chartRel));
  doc = replaceBlock(doc, "history", (old) => {
    const row = historyRow(rep);
    const sameRun = row.slice(0, row.indexOf(" | ", 2));
    // Re-rendering a run (--render) replaces its line instead of adding another.
    const rows = old
      .split("\n")
      .filter(
        (l) =>
          l.startsWith("| ") &&
          !l.startsWith(HISTORY_HEAD[0].slice(0, 12)) &&
          !l.startsWith("|---") &&
          !l.startsWith(sameRun),
      );
    return [...HISTORY_HEAD, ...rows, row].join("\n");
  });
  fs.writeFileSync(docFile, doc);
}

/** Writes the memory group's block (`bench:memory`) of `docFile`, leaving everything else alone. */
export function writeMemoryDoc(docFile: string, rep: MemoryReport): void {
  const doc = fs.existsSync(docFile) ? fs.readFileSync(docFile, "utf8") : SKELETON;
  fs.writeFileSync(
    docFile,
    replaceBlock(doc, "memory", () => renderMemoryMarkdown(rep)),
  );
}

const COLORS: Record<Group, string> = {
  ceiling: "#9aa5b1",
  peer: "#e07b39",
  passthrough: "#6c8ebf",
  gantry: "#2f855a",
  scaleout: "#805ad5",
};

export function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A three-panel horizontal bar chart: req/s, p99 latency and responses per CPU-second per target. */
/** The opening of a chart: its size, an accessible title, a white background and the heading (constants, not escaped). */
export function svgHead(width: number, height: number, title: string, heading: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${title}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">${heading}</text>`,
  ];
}

export function renderSvg(rep: BenchReport): string {
  const rows = rep.rows;
  const labelW = 260;
  const panelW = 250;
  const gap = 110;
  const rowH = 26;
  const top = 78;
  const width = labelW + panelW * 3 + gap * 2 + 130;
  const height = top + rows.length * rowH + 50;
  const panels: Array<{ title: string; value: (r: TargetRow) => number; fmt: (n: number) => string }> = [
    { title: "Throughput, req/s (higher is better)", value: (r) => r.load.rps, fmt: fmtInt },
    { title: "p99 latency, ms (lower is better)", value: (r) => r.load.p99, fmt: fmtMs },
    { title: "Responses per CPU-second (higher is better)", value: perCpuSecond, fmt: fmtInt },
  ];
  const s = svgHead(
    width,
    height,
    "Gantry vs the machine's ceiling and express-gateway: throughput, p99 and responses per CPU-second",
    "Gantry vs the machine's ceiling and express-gateway",
  );
  s.push(
    `<text x="12" y="40" fill="#444">${esc(rep.date.slice(0, 16).replace("T", " "))} UTC · ${rep.machine.nproc} cores · Node ${esc(rep.machine.node)} · ${rep.options.connections} connections · ${rep.options.durationSec} s per target · commit ${esc(rep.commit)}</text>`,
  );
  panels.forEach((panel, pi) => {
    const x0 = labelW + pi * (panelW + gap);
    const values = rows.map((r) => panel.value(r));
    // Scale to the rows other than the ceiling, so they stay readable; a longer ceiling bar is cut
    // (drawn with a break mark) and its value printed.
    const others = values.filter((v, i) => Number.isFinite(v) && rows[i].group !== "ceiling");
    const max = Math.max(...(others.length ? others : values.filter((v) => Number.isFinite(v))), 1e-9);
    s.push(`<text x="${x0}" y="${top - 12}" font-weight="bold">${esc(panel.title)}</text>`);
    s.push(`<line x1="${x0}" y1="${top}" x2="${x0}" y2="${top + rows.length * rowH}" stroke="#999"/>`);
    rows.forEach((r, i) => {
      const y = top + i * rowH;
      const v = values[i];
      const cut = Number.isFinite(v) && v > max * 1.1;
      const w = !Number.isFinite(v) ? 0 : cut ? panelW * 1.06 : Math.max(1, (v / max) * panelW);
      s.push(`<rect x="${x0}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowH - 8}" fill="${COLORS[r.group]}"/>`);
      if (cut)
        s.push(
          `<path d="M${(x0 + w - 24).toFixed(1)} ${y + 2} l6 ${rowH - 4} M${(x0 + w - 16).toFixed(1)} ${y + 2} l6 ${rowH - 4}" stroke="#fff" stroke-width="3"/>`,
        );
      s.push(`<text x="${(x0 + w + 4).toFixed(1)}" y="${y + 17}">${panel.fmt(v)}${cut ? " ⇥" : ""}</text>`);
    });
  });
  rows.forEach((r, i) => {
    s.push(`<text x="${labelW - 8}" y="${top + i * rowH + 17}" text-anchor="end">${esc(r.label)}</text>`);
  });
  const ly = top + rows.length * rowH + 24;
  let lx = 12;
  const legend: Array<[Group, string]> = [
    ["ceiling", "ceiling: bare node:http"],
    ["peer", "express-gateway 1.16"],
    ["passthrough", "Gantry passthrough floor (HTTP → gRPC only)"],
    ["gantry", "Gantry full chain"],
  ];
  if (rows.some((r) => r.group === "scaleout")) legend.push(["scaleout", "scale-out"]);
  for (const [g, label] of legend) {
    s.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${COLORS[g]}"/>`);
    s.push(`<text x="${lx + 16}" y="${ly}">${esc(label)}</text>`);
    lx += 30 + label.length * 6.4;
  }
  s.push(
    `<text x="12" y="${ly + 20}" fill="#555">Ratios measured side by side on one shared 2-core machine (the load generator uses one core); ⇥ = bar cut, off scale. See docs/benchmarks.md.</text>`,
  );
  s.push("</svg>");
  return s.join("\n");
}

// ---- scale-out -------------------------------------------------------------------------------

const shapeName = (r: TargetRow) =>
  r.scaleout
    ? `${r.scaleout.gateways} gateway${r.scaleout.gateways === 1 ? "" : "s"} × ${r.scaleout.replicas} replica${r.scaleout.replicas === 1 ? "" : "s"}`
    : r.label;

/** The baseline (fewest processes) and the widest scale-out row, when the run has both. */
function scaleoutPair(rep: BenchReport): { base: TargetRow; wide: TargetRow; all: TargetRow[] } | undefined {
  const all = rep.rows.filter((r) => r.scaleout);
  if (all.length < 2) return undefined;
  const size = (r: TargetRow) => r.scaleout!.gateways + r.scaleout!.replicas;
  const sorted = [...all].sort((a, b) => size(a) - size(b));
  return { base: sorted[0], wide: sorted[sorted.length - 1], all };
}

/** Cores the whole machine used during a row's run: its processes, the load generator and everything else. */
function busyCores(r: TargetRow): number {
  return involvedCores(r) + r.cpu.loadGenerator + r.cpu.other;
}

/** Where a scale-out row's CPU went, by part of the stack (replicas and gateways summed). */
const SCALEOUT_PARTS: Array<{ part: string; color: string; cores: (r: TargetRow) => number }> = [
  { part: "gateways", color: "#2f855a", cores: (r) => coresOf(r, (n) => n.startsWith("gateway")) },
  { part: "workspace", color: "#805ad5", cores: (r) => coresOf(r, (n) => n.startsWith("workspace")) },
  { part: "keys", color: "#6c8ebf", cores: (r) => coresOf(r, (n) => n === "keys") },
  { part: "Postgres", color: "#336791", cores: (r) => coresOf(r, (n) => n === "postgres") },
  { part: "NATS + Redis", color: "#c05621", cores: (r) => coresOf(r, (n) => n === "nats" || n === "redis") },
  { part: "load generator", color: "#9aa5b1", cores: (r) => r.cpu.loadGenerator },
  { part: "rest of the machine", color: "#d6dbe0", cores: (r) => r.cpu.other },
];

function coresOf(r: TargetRow, match: (name: string) => boolean): number {
  return r.cpu.byProcess.filter((p) => match(p.name)).reduce((n, p) => n + p.cores, 0);
}

/** µs of CPU per response spent by the processes `match` selects. */
function microsPerCall(r: TargetRow, match: (name: string) => boolean): number {
  return r.load.rps > 0 ? (coresOf(r, match) / r.load.rps) * 1e6 : NaN;
}

/** The scale-out section of the results block (empty when the run had no scale-out rows). */
export function renderScaleoutMarkdown(rep: BenchReport, chartFile: string): string[] {
  const pair = scaleoutPair(rep);
  if (!pair) return [];
  const { base, wide, all } = pair;
  const nproc = rep.machine.nproc;
  const L: string[] = [];
  L.push("### Scale-out: more gateways and service replicas");
  L.push("");
  L.push(`![Scale-out: contact.get throughput and where the cores went](${chartFile})`);
  L.push("");
  L.push(
    `contact.get (one gRPC hop and a Postgres read by id) through ${shapeName(wide)} vs ${shapeName(base)}, measured in alternating slices on one stack (keys, workspace × ${wide.scaleout!.replicas}, Postgres, NATS, Redis). The same ${rep.options.connections} connections in total: split evenly over the gateways (one autocannon run per gateway, at once), as a load balancer would. Every gateway counts rate limits in the shared Redis; the gateways' gRPC client rotates calls over the workspace replicas their \`WORKSPACE_ADDR\` lists. CPU is per response, by part of the stack (replicas and gateways summed), and the cores the whole machine used (its processes, the load generator, the rest) out of its ${nproc}.`,
  );
  L.push("");
  L.push(
    `| configuration | req/s | × baseline | p50 ms | p99 ms | p99 × baseline | gateway CPU µs/response | workspace CPU µs/response | keys + Postgres + NATS + Redis µs/response | cores busy (of ${nproc}) | status |`,
  );
  L.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const r of all) {
    const rest = microsPerCall(r, (n) => ["keys", "postgres", "nats", "redis"].includes(n));
    L.push(
      `| ${shapeName(r)}${r.unexpected ? ` ⚠ ${r.unexpected}` : ""} | ${fmtInt(r.load.rps)} | ${fmtX(r.load.rps / base.load.rps)} | ${fmtMs(r.load.p50)} | ${fmtMs(r.load.p99)} | ${fmtX(r.load.p99 / base.load.p99)} | ${fmtInt(microsPerCall(r, (n) => n.startsWith("gateway")))} | ${fmtInt(microsPerCall(r, (n) => n.startsWith("workspace")))} | ${fmtInt(rest)} | ${busyCores(r).toFixed(2)} | ${statuses(r)} |`,
    );
  }
  L.push("");
  L.push(`| configuration | ${SCALEOUT_PARTS.map((p) => `${p.part} (cores)`).join(" | ")} |`);
  L.push(`|---|${SCALEOUT_PARTS.map(() => "---:").join("|")}|`);
  for (const r of all) L.push(`| ${shapeName(r)} | ${SCALEOUT_PARTS.map((p) => p.cores(r).toFixed(2)).join(" | ")} |`);
  L.push("");
  const x = wide.load.rps / base.load.rps;
  const busy = busyCores(wide);
  const perCall = (r: TargetRow) => fmtInt(1e6 / perCpuSecond(r));
  L.push(
    `${shapeName(wide)} served **${fmtX(x)}** the throughput of ${shapeName(base)} at ${fmtX(wide.load.p99 / base.load.p99)} its p99; ` +
      `its processes spent ${perCall(wide)} µs of CPU per response together (${perCall(base)} µs for ${shapeName(base)}). ` +
      (busy >= 0.9 * nproc
        ? `The machine's ${nproc} cores were ${fmtPct(busy / nproc)} busy during it (Gantry's processes ${involvedCores(wide).toFixed(2)}, the load generator ${wide.cpu.loadGenerator.toFixed(2)}, the rest of the machine ${wide.cpu.other.toFixed(2)}): the cores are the ceiling here, and the added gateway and replica share them with the first ones` +
          (wide.cpu.other >= 0.3
            ? "; other work on the machine took its share too, and that share moves, so this ratio says less than the CPU per response"
            : "") +
          ". Scaling out adds throughput where the added processes get cores of their own (more nodes), not on this machine."
        : `The machine's ${nproc} cores were ${fmtPct(busy / nproc)} busy during it: CPU was left over, so the ratio is the processes' own.`),
  );
  L.push("");
  return L;
}

/**
 * The scale-out chart: throughput per configuration, and where the machine's cores went (stacked,
 * with the machine's core count marked), so the reader sees the CPU ceiling. Undefined without scale-out rows.
 */
export function renderScaleoutSvg(rep: BenchReport): string | undefined {
  const pair = scaleoutPair(rep);
  if (!pair) return undefined;
  const rows = pair.all;
  const nproc = rep.machine.nproc;
  const labelW = 190;
  const panelW = 260;
  const gap = 90;
  const rowH = 30;
  const top = 70;
  const width = labelW + panelW * 2 + gap + 70;
  const legendY = top + rows.length * rowH + 26;
  const height = legendY + 44;
  const s = svgHead(
    width,
    height,
    "Scale-out: contact.get through more gateways and workspace replicas, and where the cores went",
    "Scale-out: contact.get through more gateways and workspace replicas",
  );
  s.push(
    `<text x="12" y="40" fill="#444">${esc(rep.date.slice(0, 16).replace("T", " "))} UTC · ${nproc} cores · ${rep.options.connections} connections in total · commit ${esc(rep.commit)}</text>`,
  );
  const maxRps = Math.max(...rows.map((r) => r.load.rps), 1e-9);
  const x1 = labelW;
  const x2 = labelW + panelW + gap;
  s.push(`<text x="${x1}" y="${top - 10}" font-weight="bold">Throughput, req/s (p99 in brackets)</text>`);
  s.push(`<text x="${x2}" y="${top - 10}" font-weight="bold">Cores used, by part (of ${nproc})</text>`);
  const coreScale = panelW / Math.max(nproc, ...rows.map(busyCores));
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    s.push(`<text x="${labelW - 8}" y="${y + 19}" text-anchor="end">${esc(shapeName(r))}</text>`);
    // The widest bar leaves room for its label before the next panel.
    const w = Math.max(1, (r.load.rps / maxRps) * panelW * 0.62);
    s.push(`<rect x="${x1}" y="${y + 5}" width="${w.toFixed(1)}" height="${rowH - 10}" fill="#4a5568"/>`);
    s.push(`<text x="${(x1 + w + 4).toFixed(1)}" y="${y + 19}">${fmtInt(r.load.rps)} (${fmtMs(r.load.p99)} ms)</text>`);
    let at = x2;
    for (const p of SCALEOUT_PARTS) {
      const pw = Math.max(0, p.cores(r)) * coreScale;
      if (pw < 0.5) continue;
      s.push(
        `<rect x="${at.toFixed(1)}" y="${y + 5}" width="${pw.toFixed(1)}" height="${rowH - 10}" fill="${p.color}"><title>${esc(p.part)} ${p.cores(r).toFixed(2)} cores</title></rect>`,
      );
      at += pw;
    }
  });
  const limitX = x2 + nproc * coreScale;
  s.push(
    `<line x1="${limitX.toFixed(1)}" y1="${top - 2}" x2="${limitX.toFixed(1)}" y2="${top + rows.length * rowH + 2}" stroke="#c53030" stroke-width="2" stroke-dasharray="4 3"/>`,
  );
  s.push(
    `<text x="${(limitX + 4).toFixed(1)}" y="${top + rows.length * rowH + 2}" fill="#c53030">${nproc} cores</text>`,
  );
  let lx = 12;
  for (const p of SCALEOUT_PARTS) {
    s.push(`<rect x="${lx}" y="${legendY - 10}" width="12" height="12" fill="${p.color}"/>`);
    s.push(`<text x="${lx + 16}" y="${legendY}">${esc(p.part)}</text>`);
    lx += 30 + p.part.length * 6.4;
  }
  s.push(
    `<text x="12" y="${legendY + 22}" fill="#555">Measured in alternating slices on one shared machine; the load is split evenly over the gateways. See docs/benchmarks.md.</text>`,
  );
  s.push("</svg>");
  return s.join("\n");
}
