/**
 * Unit tests of the bench's pure parts: the profile summary (time window, self and inclusive time),
 * the report (target checks, doc blocks that keep hand-written text, one history line per run), the
 * /proc readers, the RSS sampler thread, merging slices and concurrent runs, the scale-out section,
 * and the memory group's floor (same ranking as the service's partition) and block. bench/run.test.ts runs the bench itself, in miniature.
 *
 * Run: npm test -- bench
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { categorize, summarizeProfile } from "./profile.ts";
import {
  checks,
  describeFailures,
  historyRow,
  perCpuSecond,
  renderMarkdown,
  renderScaleoutSvg,
  renderSvg,
  writeDoc,
  type BenchReport,
  type TargetRow,
} from "./report.ts";
import { mergeConcurrent } from "./scaleout.ts";
import { CpuMeter, RssSampler, memoryOf, rssBytes } from "./proc-stats.ts";
import { processTrees } from "../../infra/testing/process-tree.ts";
import { spawnSync } from "node:child_process";
import { mergeLoads, type LoadResult } from "./load.ts";
import { Corpus, floorSearch, naiveFloorSearch, stats } from "./memory.ts";
import { renderMemoryMarkdown, type MemoryReport } from "./memory-report.ts";
import { writeMemoryDoc } from "./report.ts";
import { Partition } from "../../services/memory/src/store/partition.ts";
import { LexicalHashEmbedder } from "../../services/memory/src/embed/lexical.ts";

const ROOT = "/repo";

function frame(functionName: string, url: string, lineNumber = 0) {
  return { functionName, url, lineNumber, columnNumber: 0, scriptId: "0" };
}

test("summarizeProfile keeps only samples in the window and splits self from inclusive time", () => {
  // root → runAbility → (record → writeBuffer) | gantryAbout ; plus idle
  const nodes = [
    { id: 1, callFrame: frame("(root)", ""), children: [2, 6] },
    {
      id: 2,
      callFrame: frame("runAbility", "file:///repo/gateway/src/pipeline/execute-ability.ts", 52),
      children: [3, 5],
    },
    { id: 3, callFrame: frame("record", "file:///repo/gateway/src/audit.ts", 26), children: [4] },
    { id: 4, callFrame: frame("writeBuffer", ""), children: [] },
    { id: 5, callFrame: frame("gantryAbout", "file:///repo/gateway/src/meta/gantry-about.ts", 9), children: [] },
    { id: 6, callFrame: frame("(idle)", ""), children: [] },
  ];
  // Samples 1 ms apart from t = 1000 µs; the first two fall before the window.
  const samples = [5, 5, 4, 4, 4, 5, 6, 6, 2, 2];
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-test-")), "p.cpuprofile");
  fs.writeFileSync(
    file,
    JSON.stringify({ nodes, startTime: 0, endTime: 11_000, samples, timeDeltas: samples.map(() => 1000) }),
  );
  const s = summarizeProfile(file, ROOT, { fromUs: 2_500, toUs: 20_000 });
  // In the window: samples 3..10 minus the last (no following delta) = 7 samples, 2 idle.
  assert.equal(Math.round(s.seconds * 1000), 7);
  assert.equal(s.busy.toFixed(3), (5 / 7).toFixed(3));
  const self = Object.fromEntries(s.topSelf.map((f) => [f.name, f.share]));
  assert.equal(self.writeBuffer, 3 / 5);
  assert.equal(self.gantryAbout, 1 / 5);
  assert.equal(self.runAbility, 1 / 5);
  const incl = Object.fromEntries(s.topInclusive.map((f) => [f.name, f.share]));
  assert.equal(incl.runAbility, 1);
  assert.equal(incl.record, 3 / 5);
  assert.equal(s.topSelf.find((f) => f.name === "record") ?? "absent", "absent");
  assert.equal(s.topInclusive.find((f) => f.name === "gantryAbout")?.where, "gateway/src/meta/gantry-about.ts:10");
});

test("categorize tells our code, dependencies and runtime apart", () => {
  assert.equal(categorize(frame("x", "file:///repo/gateway/src/app.ts"), ROOT), "gantry gateway");
  assert.equal(categorize(frame("x", "file:///repo/kit/src/grpc.ts"), ROOT), "gantry kit");
  assert.equal(
    categorize(frame("x", "file:///repo/node_modules/@grpc/grpc-js/build/src/client.js"), ROOT),
    "grpc-js + protobufjs",
  );
  assert.equal(categorize(frame("x", "file:///repo/node_modules/router/index.js"), ROOT), "Express 5 + its deps");
  assert.equal(
    categorize(frame("x", "file:///repo/node_modules/@nats-io/nats-core/lib/errors.js"), ROOT),
    "NATS client",
  );
  assert.equal(categorize(frame("x", "node:_http_outgoing"), ROOT), "Node http/net/streams");
  assert.equal(categorize(frame("(garbage collector)", ""), ROOT), "GC");
  assert.equal(categorize(frame("f", "wasm://wasm/00ad0bc6"), ROOT), "TS type stripping (amaro)");
});

function load(rps: number, p99: number, statuses: Record<string, number> = { "200": rps * 10 }): LoadResult {
  return {
    responses: rps * 10,
    rps,
    p50: p99 / 3,
    p90: p99 / 2,
    p99,
    max: p99 * 2,
    statuses,
    errors: 0,
    timeouts: 0,
    bytesPerResponse: 300,
    seconds: 10,
  };
}

function row(
  id: string,
  group: TargetRow["group"],
  rps: number,
  p99: number,
  cores: number,
  ability?: string,
): TargetRow {
  return {
    id,
    group,
    label: id,
    ability,
    note: "",
    expectStatus: 200,
    load: load(rps, p99),
    peakRssBytes: 100 << 20,
    pssAfterBytes: 80 << 20,
    frontRssBytes: 90 << 20,
    processes: "",
    cpu: { byProcess: [{ name: "front", cores }], loadGenerator: 0.5, other: 0 },
    logLines: 0,
  };
}

function report(rows: TargetRow[], date = "2026-11-22T10:00:00.000Z"): BenchReport {
  return {
    date,
    command: "npm run bench",
    commit: "abc1234",
    machine: { nproc: 2, cpu: "test", memGiB: 24, node: "v24.0.0", loadavg: [0, 0, 0] },
    options: { durationSec: 10, connections: 64, warmupSec: 1 },
    rows,
    skipped: [],
    coldStart: { npmStartFirstSec: 8, npmStartRestartSec: 6, benchStackSec: 7 },
    idle: undefined,
    idleAfter: undefined,
    profiles: [],
    expressGateway: { version: "1.16.11", installSec: 0 },
    totalSec: 180,
  };
}

const ROWS = [
  row("ceiling", "ceiling", 40_000, 5, 0.8),
  row("express-gateway", "peer", 2_000, 60, 1),
  row("passthrough:web.browse", "passthrough", 3_000, 50, 1, "web.browse"),
  row("gantry:gantry.about", "gantry", 4_500, 25, 0.9, "gantry.about"),
  row("gantry:web.browse", "gantry", 2_000, 70, 1, "web.browse"),
];

test("checks judge the issue's targets on the measured ratios", () => {
  const byWhat = Object.fromEntries(checks(report(ROWS)).map((c) => [c.what, c]));
  assert.equal(byWhat["gantry.about throughput vs express-gateway"].met, true); // 2.25×
  assert.equal(byWhat["gantry.about p99 vs express-gateway"].met, true); // 25 / 60
  const hop = byWhat["full chain vs passthrough floor, same ability (web.browse, both hop)"];
  assert.equal(hop.met, false); // 67%
  assert.match(hop.measured, /^67% \(per CPU-second: 67%\)$/);
  assert.equal(byWhat["cold start of `npm start`, data dir kept (restart)"].met, true);
  assert.equal(perCpuSecond(ROWS[1]), 2_000);
});

test("the hot-path targets of issue 19: real abilities vs the peer and gantry.about, service CPU, idle RSS", () => {
  const get: TargetRow = {
    ...row("gantry:contact.get", "gantry", 3_000, 25, 0, "contact.get"),
    cpu: {
      byProcess: [
        { name: "gateway", cores: 0.75 },
        { name: "workspace", cores: 0.39 },
        { name: "postgres", cores: 0.15 },
      ],
      loadGenerator: 0.2,
      other: 0,
    },
  };
  const rep = report([
    ...ROWS,
    get,
    row("gantry:contact.create", "gantry", 2_100, 40, 1, "contact.create"),
    row("gantry:key.inspect", "gantry", 1_900, 40, 1, "key.inspect"),
  ]);
  rep.idle = { rssBytes: 900 << 20, pssBytes: 600 << 20, byProcess: [{ name: "gateway", rssBytes: 900 << 20 }] };
  rep.idleAfter = { rssBytes: 1170 << 20, pssBytes: 700 << 20, byProcess: [{ name: "gateway", rssBytes: 1170 << 20 }] };
  const byWhat = Object.fromEntries(checks(rep).map((c) => [c.what, c]));
  const thr = byWhat["contact.get (full chain: one hop, one Postgres read) throughput vs express-gateway"];
  assert.equal(thr.met, false); // 1.5×
  assert.equal(byWhat["contact.get p99 vs express-gateway"].met, true); // 25 / 60
  assert.equal(byWhat["contact.get throughput vs gantry.about (no hop)"].measured, "67%");
  assert.equal(byWhat["contact.create throughput vs express-gateway"].met, true);
  assert.equal(byWhat["key.inspect throughput vs express-gateway"].met, false);
  const cpu = byWhat["workspace service CPU per contact.get (a by-id read), from the process's CPU time"];
  // 0.39 cores / 3,000 responses per second = 130 µs per read.
  assert.equal(cpu.measured, "130 µs (Postgres: 50 µs, gateway: 250 µs)");
  assert.equal(cpu.met, true);
  assert.equal(byWhat["whole stack idle RSS after start (1 processes)"].met, true);
  const after = byWhat["whole stack RSS once quiet again after the load, vs idle before it"];
  assert.match(after.measured, /^\+30% \(1170 MiB/);
  assert.equal(after.met, false);
});
test("issue 30's targets: each ratio against its own base row, a failed side not judged", () => {
  const withCpu = (r: TargetRow, byProcess: Array<{ name: string; cores: number }>): TargetRow => ({
    ...r,
    cpu: { byProcess, loadGenerator: 0.2, other: 0 },
  });
  // Every rate differs, so a ratio taken against the wrong row shows up in its figure.
  const rows = [
    row("express-gateway", "peer", 1_000, 60, 1),
    row("gantry:gantry.about", "gantry", 4_000, 20, 1, "gantry.about"),
    withCpu(row("gantry:contact.get", "gantry", 2_400, 30, 0, "contact.get"), [{ name: "gateway", cores: 1.2 }]),
    withCpu(row("gantry:contact.get:run", "gantry", 1_500, 50, 0, "contact.get"), [
      { name: "gateway", cores: 1 },
      { name: "trust", cores: 0.3 },
    ]),
    row("gantry:payment.initiate", "gantry", 1_100, 70, 1, "payment.initiate"),
    row("gantry:payout.send", "gantry", 700, 90, 1, "payout.send"),
    withCpu(row("gantry:web.browse", "gantry", 180, 400, 0, "web.browse"), [{ name: "web", cores: 1.26 }]),
  ];
  const byWhat = Object.fromEntries(checks(report(rows)).map((c) => [c.what, c]));
  const run = byWhat["contact.get under a trust run (permit + signed receipt) vs plain contact.get"];
  // 1,500 / 2,400; per CPU-second (1,500 / 1.3) / (2,400 / 1.2); 0.3 cores / 1,500 per second.
  assert.equal(run.measured, "0.63× (per CPU-second: 0.58×); trust CPU 200 µs per call");
  assert.equal(run.met, true);
  assert.equal(
    byWhat["payment.initiate (sandbox) throughput vs express-gateway"].measured,
    "1.10× (per CPU-second: 1.10×)",
  );
  assert.equal(byWhat["payment.initiate (sandbox) throughput vs express-gateway"].met, true);
  assert.equal(byWhat["payout.send (sandbox) throughput vs express-gateway"].measured, "0.70× (per CPU-second: 0.70×)");
  assert.equal(byWhat["payout.send (sandbox) throughput vs express-gateway"].met, false);
  const web = byWhat["web.browse, HTTP path, the bench's article page (size under *What each target is*)"];
  assert.equal(web.measured, "180 pages/s (web CPU 7.00 ms per page)");
  assert.equal(web.met, false);

  // express-gateway with a slice of refused connections: the payment ratios say so instead of passing.
  const failed = rows.map((r) =>
    r.id === "express-gateway"
      ? { ...r, load: { ...r.load, errors: 9_000 }, unexpected: "9000 errors (ECONNREFUSED 9,000)" }
      : r,
  );
  const pay = checks(report(failed)).find((c) => c.what.startsWith("payment.initiate"))!;
  assert.equal(pay.met, undefined);
  assert.match(pay.measured, /not judged: express-gateway had 9000 errors \(ECONNREFUSED 9,000\)$/);
  // A handful of failures out of 10,000 is named, and the ratio still judged.
  const few = rows.map((r) =>
    r.id === "gantry:contact.get:run" ? { ...r, load: { ...r.load, errors: 3 }, unexpected: "3 errors" } : r,
  );
  const runFew = checks(report(few)).find((c) => c.what.startsWith("contact.get under a trust run"))!;
  assert.equal(runFew.met, true);
  assert.match(runFew.measured, /; gantry:contact\.get:run had 3 errors$/);
  // Other work on the machine during a side: said, so the req/s ratio is not read alone.
  const busy = rows.map((r) => (r.id === "express-gateway" ? { ...r, cpu: { ...r.cpu, other: 1.6 } } : r));
  const payBusy = checks(report(busy)).find((c) => c.what.startsWith("payment.initiate"))!;
  assert.equal(
    payBusy.measured,
    "1.10× (per CPU-second: 1.10×); the rest of the machine used up to 1.60 cores meanwhile: read per CPU-second",
  );
});

test("describeFailures names the failing slice, the errors by kind, and a slice with no response", () => {
  const ok = load(1_000, 20);
  const refused: LoadResult = {
    ...load(0, NaN, {}),
    responses: 0,
    errors: 17_152,
    errorKinds: { ECONNREFUSED: 17_152 },
  };
  assert.equal(describeFailures(200, [ok, ok]), undefined);
  assert.equal(
    describeFailures(200, [refused, ok]),
    "17152 errors (ECONNREFUSED 17,152); in slice 1 of 2; no response in slice 1 of 2 (10 s): every request failed",
  );
  const stalled: LoadResult = { ...load(0, NaN, {}), responses: 0, seconds: 5 };
  assert.equal(
    describeFailures(200, [ok, stalled]),
    "no response in slice 2 of 2 (5.0 s): every request was still waiting for its answer when it ended",
  );
  assert.equal(describeFailures(501, [load(10, 5, { "501": 90, "503": 10 })]), "10 × 503");
  const merged = mergeLoads([
    { load: refused, times: new Float64Array(0) },
    { load: ok, times: new Float64Array(10_000).fill(5) },
  ]);
  assert.deepEqual(merged.errorKinds, { ECONNREFUSED: 17_152 });
});

test("writeDoc keeps hand-written text and writes one history line per run", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-doc-"));
  const doc = path.join(dir, "benchmarks.md");
  fs.writeFileSync(
    doc,
    "# B\n\nhand-written intro\n\n<!-- bench:results:begin -->\nold\n<!-- bench:results:end -->\n\n## Findings\n\nmine\n\n<!-- bench:history:begin -->\n<!-- bench:history:end -->\n",
  );
  writeDoc(doc, report(ROWS), "benchmarks.svg");
  writeDoc(doc, report(ROWS), "benchmarks.svg"); // the same run again (--render): replaced, not added
  writeDoc(doc, report(ROWS, "2026-11-23T10:00:00.000Z"), "benchmarks.svg");
  const text = fs.readFileSync(doc, "utf8");
  assert.match(text, /hand-written intro/);
  assert.match(text, /## Findings\n\nmine/);
  assert.doesNotMatch(text, /\nold\n/);
  assert.match(text, /\| gantry:gantry\.about \| 4,500 \|/);
  const history = text.split("\n").filter((l) => l.startsWith("| 2026-11-2"));
  assert.deepEqual(
    history.map((l) => l.slice(0, 18)),
    ["| 2026-11-22 10:00", "| 2026-11-23 10:00"],
  );
  assert.equal(history[0], historyRow(report(ROWS)));
  const svg = renderSvg(report(ROWS));
  assert.match(svg, /^<svg /);
  assert.match(svg, /gantry:gantry\.about/);
});

test("the /proc readers see this process", async () => {
  assert.ok(processTrees([process.pid]).includes(process.pid));
  const mem = memoryOf([process.pid]);
  assert.ok(mem.rssBytes > 10 << 20, `rss ${mem.rssBytes}`);
  const cpu = new CpuMeter([process.pid]);
  cpu.start();
  const until = Date.now() + 200;
  while (Date.now() < until) Math.sqrt(Math.random()); // burn some CPU
  const used = cpu.stop();
  assert.ok(Number.isFinite(used.other) && used.other >= 0);
  assert.ok((used.byRoot.get(process.pid) ?? 0) > 0.05, `cores ${used.byRoot.get(process.pid)}`);
});

/** A measured run of `times` (ms) over `seconds`, as runLoad returns it with its latencies. */
const timedRun = (times: number[], seconds: number, statuses: Record<string, number>, bytes = 100, errors = 0) => ({
  times: Float64Array.from(times).sort(),
  load: {
    responses: times.length,
    rps: times.length / seconds,
    p50: NaN,
    p90: NaN,
    p99: NaN,
    max: NaN,
    statuses,
    errors,
    timeouts: 0,
    bytesPerResponse: bytes,
    seconds,
  },
});

test("mergeLoads adds slices up and takes percentiles over every response", () => {
  const slice = (times: number[], seconds: number, statuses: Record<string, number>, bytes: number) =>
    timedRun(times, seconds, statuses, bytes, 1);
  // 100 fast responses in the first slice, 100 slow ones in the second: the merged median sits
  // between them and the merged p99 is a slow one; neither slice alone says that.
  const fast = slice(
    Array.from({ length: 100 }, (_, i) => 1 + i / 100),
    1,
    { "200": 100 },
    100,
  );
  const slow = slice(
    Array.from({ length: 100 }, (_, i) => 10 + i / 10),
    3,
    { "200": 99, "503": 1 },
    300,
  );
  const m = mergeLoads([fast, slow]);
  assert.equal(m.responses, 200);
  assert.equal(m.seconds, 4);
  assert.equal(m.rps, 50);
  assert.equal(m.p50, 1.99);
  assert.equal(m.p99, 19.7);
  assert.equal(m.max, 19.9);
  assert.deepEqual(m.statuses, { "200": 199, "503": 1 });
  assert.equal(m.errors, 2);
  assert.equal(m.bytesPerResponse, 200);
  assert.equal(mergeLoads([fast]), fast.load, "one slice is its own result");
});

test("mergeConcurrent adds up runs that happened at once: rates add, seconds are the longest run's", () => {
  const run = (times: number[], seconds: number) => timedRun(times, seconds, { "200": times.length });
  // Two gateways loaded for the same 2 s: 100 responses each, one of them slower.
  const a = run(
    Array.from({ length: 100 }, (_, i) => 1 + i / 100),
    2,
  );
  const b = run(
    Array.from({ length: 100 }, (_, i) => 10 + i / 10),
    2.1,
  );
  const { load: m, times } = mergeConcurrent([a, b]);
  assert.equal(m.responses, 200);
  assert.equal(m.rps, 50 + 100 / 2.1, "the rates of runs side by side add up");
  assert.equal(m.seconds, 2.1);
  assert.equal(m.p99, 19.7, "percentiles over every response of both");
  assert.deepEqual(m.statuses, { "200": 200 });
  assert.equal(times.length, 200);
  assert.ok(
    times.every((t, i) => i === 0 || times[i - 1] <= t),
    "sorted, for slices merged later",
  );
});

test("the scale-out section reports the ratio, CPU per response by part and the cores the machine had", () => {
  const scaled = (id: string, gateways: number, replicas: number, rps: number, p99: number): TargetRow => ({
    ...row(id, "scaleout", rps, p99, 0),
    scaleout: { gateways, replicas },
    cpu: {
      byProcess: [
        ...Array.from({ length: gateways }, (_, i) => ({
          name: i ? `gateway-${i + 1}` : "gateway",
          cores: 0.8 / gateways,
        })),
        ...Array.from({ length: replicas }, (_, i) => ({
          name: i ? `workspace-${i + 1}` : "workspace",
          cores: 0.5 / replicas,
        })),
        { name: "keys", cores: 0.02 },
        { name: "postgres", cores: 0.2 },
        { name: "nats", cores: 0.03 },
        { name: "redis", cores: 0.05 },
      ],
      loadGenerator: 0.3,
      other: 0.1,
    },
  });
  const rep = report([scaled("scaleout:1x1", 1, 1, 2_000, 50), scaled("scaleout:2x2", 2, 2, 1_900, 80)]);
  const md = renderMarkdown(rep, "benchmarks.svg");
  assert.match(md, /### Scale-out/);
  assert.match(md, /!\[[^\]]*\]\(benchmarks-scaleout\.svg\)/);
  // 2 × 2: 0.8 cores of gateways / 1,900 req/s = 421 µs per response, workspace 0.5 / 1,900 = 263 µs.
  assert.match(
    md,
    /\| 2 gateways × 2 replicas \| 1,900 \| 0\.95× \| [\d.]+ \| 80\.0 \| 1\.60× \| 421 \| 263 \| 158 \| 2\.00 \| 200 \|/,
  );
  assert.match(md, /cores were 100% busy during it .*the cores are the ceiling here/);
  const check = checks(rep).find((c) => c.what.startsWith("scale-out"));
  assert.equal(check?.measured, "0.95× req/s, 1.60× p99; 2.0 of 2 cores busy");
  assert.equal(check?.met, undefined, "reported, not judged: the issue asks for the measurement");
  assert.match(renderScaleoutSvg(rep) ?? "", /2 cores<\/text>/);
  assert.equal(renderScaleoutSvg(report(ROWS)), undefined, "no scale-out rows, no chart");
  assert.doesNotMatch(renderMarkdown(report(ROWS), "benchmarks.svg"), /### Scale-out/);
});

test("RssSampler keeps sampling while the load generator's thread is busy", async () => {
  // A child holds 150 MB for 800 ms while this thread is blocked in spawnSync: only a sampler on
  // another thread can see it (a timer on this thread would not fire until the child is gone).
  const base = rssBytes(process.pid);
  const sampler = new RssSampler([[process.pid], [process.pid + 1_000_000]], 20);
  await sampler.start();
  const child = spawnSync(process.execPath, [
    "-e",
    "const b = Buffer.alloc(150e6, 1); setTimeout(() => b.length, 800)",
  ]);
  assert.equal(child.status, 0, String(child.stderr));
  const [peak, none] = await sampler.stop();
  assert.ok(
    peak >= base + 140e6,
    `peak ${(peak / 1e6).toFixed(0)} MB, this process alone ${(base / 1e6).toFixed(0)} MB`,
  );
  assert.equal(none, 0, "a set whose processes do not exist sums to 0");
});

test("the memory floor ranks exactly like the service's partition (decay off)", async () => {
  const corpus = new Corpus(7);
  const embedder = new LexicalHashEmbedder();
  const texts = Array.from({ length: 600 }, () => corpus.text());
  const vectors = await embedder.embed(texts, "document");
  const matrix = new Float32Array(texts.length * 768);
  const part = new Partition("c", embedder.model, 768, 1, texts.length);
  vectors.forEach((v, i) => {
    matrix.set(v, i * 768);
    part.upsert({
      id: `m${String(i).padStart(4, "0")}`,
      collection: "c",
      text: texts[i],
      metadata: {},
      vertical: null,
      model: embedder.model,
      dimensions: 768,
      createdAt: 0,
      updatedAt: 0,
      vector: v,
    });
  });
  for (const text of texts.slice(0, 25)) {
    const [q] = await embedder.embed([corpus.queryFor(text)], "query");
    const floor = floorSearch(matrix, texts.length, q, 5);
    const hits = part.search(q, { limit: 5, now: 0, halfLifeMs: 0 });
    const expected = [...floor.rows].filter((_, j) => floor.scores[j] > 0);
    assert.deepEqual(
      hits.map((h) => h.similarity.toFixed(6)),
      [...floor.scores].filter((s) => s > 0).map((s) => s.toFixed(6)),
    );
    assert.deepEqual(new Set(hits.map((h) => Number(h.id.slice(1)))), new Set(expected));
    assert.deepEqual(
      [...naiveFloorSearch(matrix, texts.length, q, 5)].filter((_, j) => floor.scores[j] > 0).sort(),
      [...expected].sort(),
    );
  }
  assert.deepEqual(stats([3, 1, 2, 4]), { n: 4, p50: 2, p90: 4, p99: 4, mean: 2.5, min: 1 });
});

test("writeMemoryDoc rewrites only the memory block", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-doc-"));
  const doc = path.join(dir, "benchmarks.md");
  fs.writeFileSync(
    doc,
    "# B\n\n<!-- bench:results:begin -->\nkept\n<!-- bench:results:end -->\n\n## Memory\n\nmine\n\n<!-- bench:memory:begin -->\nold\n<!-- bench:memory:end -->\n\nafter\n",
  );
  const st = stats([1, 2, 3]);
  const ip = {
    coldLoadMs: 50,
    floor: st,
    naiveFloor: st,
    store: st,
    service: { ...st, p50: 4 },
    embed: st,
    sameTopIds: true,
  };
  const rep: MemoryReport = {
    date: "2026-11-22T10:00:00.000Z",
    command: "npm run bench -- --targets memory",
    commit: "abc1234",
    machine: { nproc: 2, cpu: "test", node: "v24.0.0", loadavg: [0, 0, 0] },
    sizes: [
      {
        size: 1000,
        collection: "mem-1k",
        seed: { embedSec: 0.1, insertSec: 0.2 },
        inProcess: ip,
        gatewayColdMs: 80,
        gateway1: row("g1", "gantry", 200, 9, 1),
        gatewayLoad: row("gl", "gantry", 500, 40, 1),
        serviceRssBytes: 200 << 20,
      },
    ],
    queries: 200,
    rounds: 1,
    limit: 5,
    halfLifeDays: 30,
    dedupThreshold: 0.97,
    embedder: "lexical-hash-v1",
    loadConnections: 16,
    durationSec: 10,
    warmupSec: 1,
    totalSec: 100,
  };
  writeMemoryDoc(doc, rep);
  const text = fs.readFileSync(doc, "utf8");
  assert.match(text, /\nkept\n/);
  assert.match(text, /## Memory\n\nmine/);
  assert.match(text, /\nafter\n$/);
  assert.doesNotMatch(text, /\nold\n/);
  assert.match(text, /\| 1k \| 2\.00 \/ 3\.00 \| 2\.00 \/ 3\.00 \| 4\.00 \/ 3\.00 \| 2\.00× \|/);
  assert.equal(
    renderMemoryMarkdown(rep).split("\n")[0],
    "Run of 2026-11-22T10:00:00.000Z · commit `abc1234` · `npm run bench -- --targets memory`",
  );
});
