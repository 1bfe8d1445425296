/**
 * @module bench/lib/memory-report
 * The memory group's results (bench/lib/memory.ts) and their Markdown, written into
 * docs/benchmarks.md between the `bench:memory` markers. No imports of the service here, so the
 * report code and its tests load nothing heavy.
 */
import type { TargetRow } from "./report.ts";
import { fmtInt, fmtSize, fmtX } from "./format.ts";

export interface Stats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
}

export interface InProcessResult {
  /** First call after the store was created: loads the partition from Postgres. */
  coldLoadMs: number;
  floor: Stats;
  naiveFloor: Stats;
  /** `PostgresStore.search` with the query vector given (first 50 queries; also `naiveFloor`, `embed`). */
  store: Stats;
  /** `memorySearch`: embed the query, scan, decay, format the hits. */
  service: Stats;
  /** Query embedding alone (`LexicalHashEmbedder.embed`, one query). */
  embed: Stats;
  /** Whether the floor and the store find the same similarities, best first, with decay off (first 20 queries). */
  sameTopIds: boolean;
}

export interface MemorySizeResult {
  size: number;
  collection: string;
  seed: { embedSec: number; insertSec: number };
  inProcess: InProcessResult;
  /** First memory.search through the gateway after seeding: the service loads the partition. */
  gatewayColdMs: number;
  /** memory.search through the gateway at 1 connection. */
  gateway1: TargetRow;
  /** memory.search through the gateway at `loadConnections`. */
  gatewayLoad: TargetRow;
  /** memory.save through the gateway at `loadConnections`, fresh texts. */
  save?: TargetRow & { created: number; deduplicated: number };
  /** Memory service RSS after the searches (partition loaded). */
  serviceRssBytes: number;
}

export interface MemoryReport {
  date: string;
  command: string;
  commit: string;
  machine: { nproc: number; cpu: string; node: string; loadavg: number[] };
  sizes: MemorySizeResult[];
  queries: number;
  rounds: number;
  limit: number;
  halfLifeDays: number;
  dedupThreshold: number;
  embedder: string;
  loadConnections: number;
  durationSec: number;
  warmupSec: number;
  totalSec: number;
}

const fmtMs = (n: number) =>
  !Number.isFinite(n) ? "–" : n < 1 ? n.toFixed(3) : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0);
const pair = (a: number, b: number) => `${fmtMs(a)} / ${fmtMs(b)}`;

function cores(r: TargetRow, name: string): number {
  return r.cpu.byProcess.find((p) => p.name === name)?.cores ?? 0;
}

export function renderMemoryMarkdown(rep: MemoryReport): string {
  const L: string[] = [];
  const m = rep.machine;
  L.push(`Run of ${rep.date} · commit \`${rep.commit}\` · \`${rep.command}\``);
  L.push("");
  L.push(
    `Machine: ${m.nproc} cores (${m.cpu}), Node ${m.node}, load average at start ${m.loadavg.map((x) => x.toFixed(2)).join(" / ")}. ` +
      `Embedder \`${rep.embedder}\` (768 dimensions), \`limit\` ${rep.limit}, half-life ${rep.halfLifeDays} days, dedup at cosine ≥ ${rep.dedupThreshold}. ` +
      `In process (this Node process, the service's own modules): ${rep.queries} distinct queries × ${rep.rounds} round${rep.rounds === 1 ? "" : "s"} for the floor and the handler, the first 50 for the other columns, interleaved query by query after a warm-up (≥ 20 queries and ≥ 300 ms). ` +
      `Gateway: autocannon cycling through the same queries, ${rep.warmupSec} s warm-up + ${rep.durationSec} s per row; saves: 20 sequential saves as warm-up, then ${rep.durationSec} s with a fresh text per request. Whole memory group: ${Math.round(rep.totalSec)} s.`,
  );
  L.push("");
  L.push("#### memory.search, p50 / p99 ms");
  L.push("");
  L.push(
    "| memories in the collection | floor: Float32Array scan | store scan (`PostgresStore.search`) | in-service (`memorySearch`) | in-service ÷ floor (p50) | gateway, 1 connection | gateway ÷ in-service (p50) | gateway, 1 connection req/s |",
  );
  L.push("|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const s of rep.sizes) {
    const ip = s.inProcess;
    L.push(
      `| ${fmtSize(s.size)} | ${pair(ip.floor.p50, ip.floor.p99)} | ${pair(ip.store.p50, ip.store.p99)} | ${pair(ip.service.p50, ip.service.p99)} | ${fmtX(ip.service.p50 / ip.floor.p50)} | ` +
        `${pair(s.gateway1.load.p50, s.gateway1.load.p99)} | ${fmtX(s.gateway1.load.p50 / ip.service.p50)} | ${fmtInt(s.gateway1.load.rps)} |`,
    );
  }
  L.push("");
  L.push(`#### Under load (${rep.loadConnections} connections) and saving`);
  L.push("");
  L.push(
    "| memories | search req/s | search p50 / p99 ms | memory service cores | gateway cores | save req/s | save p50 / p99 ms | saves created / deduplicated | memory service cores (save) | partition load, in-process ms | first search through the gateway ms | memory service RSS MiB |",
  );
  L.push("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const s of rep.sizes) {
    const g = s.gatewayLoad;
    const sv = s.save;
    L.push(
      `| ${fmtSize(s.size)} | ${fmtInt(g.load.rps)}${g.unexpected ? ` ⚠ ${g.unexpected}` : ""} | ${pair(g.load.p50, g.load.p99)} | ${cores(g, "memory").toFixed(2)} | ${cores(g, "gateway").toFixed(2)} | ` +
        `${sv ? `${fmtInt(sv.load.rps)}${sv.unexpected ? ` ⚠ ${sv.unexpected}` : ""}` : "–"} | ${sv ? pair(sv.load.p50, sv.load.p99) : "–"} | ${sv ? `${fmtInt(sv.created)} / ${fmtInt(sv.deduplicated)}` : "–"} | ${sv ? cores(sv, "memory").toFixed(2) : "–"} | ` +
        `${fmtInt(s.inProcess.coldLoadMs)} | ${fmtInt(s.gatewayColdMs)} | ${(s.serviceRssBytes / 1024 / 1024).toFixed(0)} |`,
    );
  }
  L.push("");
  L.push("#### Details");
  L.push("");
  L.push(
    "| memories | floor, one accumulator p50 / p99 ms | floor ns per vector (p50) | query embedding p50 / p99 ms | in-service − store scan (p50) ms | store and floor agree on the top hits | seeding: embed / insert s |",
  );
  L.push("|---:|---:|---:|---:|---:|---|---:|");
  for (const s of rep.sizes) {
    const ip = s.inProcess;
    L.push(
      `| ${fmtSize(s.size)} | ${pair(ip.naiveFloor.p50, ip.naiveFloor.p99)} | ${((ip.floor.p50 * 1e6) / s.size).toFixed(0)} | ${pair(ip.embed.p50, ip.embed.p99)} | ${fmtMs(ip.service.p50 - ip.store.p50)} | ${ip.sameTopIds ? "yes" : "**no**"} | ${s.seed.embedSec.toFixed(1)} / ${s.seed.insertSec.toFixed(1)} |`,
    );
  }
  return L.join("\n");
}
