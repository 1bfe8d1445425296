/**
 * `npm run bench` end to end, in miniature, so the bench cannot rot between the runs that write
 * docs/benchmarks.md: the ceiling, a Gantry stack, the passthrough floor and the full chain on the
 * hop ability (interleaved), and `gantry.about`, 1 s each, nothing written to docs/; and the
 * scale-out group (two gateways and two workspace replicas vs one and one). It asserts what the run
 * reports, never how fast anything was (speed is the bench's job, not the tests').
 * express-gateway is left out: installing it needs the npm registry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BenchReport } from "./lib/report.ts";

/** `npm run bench` in miniature (1 s per target, nothing written to docs/): its report and what it printed. */
async function runBench(targets: string): Promise<{ report: BenchReport; printed: string }> {
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-run-")), "run.json");
  const args = [
    "--duration",
    "1",
    "--warmup",
    "0",
    "--slices",
    "2",
    "--targets",
    targets,
    "--no-cold-start",
    "--no-profile",
    "--no-write",
    "--json",
    json,
  ];
  const out: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "run.ts"), ...args], {
      cwd: path.join(import.meta.dirname, ".."),
      env: { ...process.env, NODE_TEST_CONTEXT: undefined },
    });
    child.stdout.on("data", (d: Buffer) => out.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => out.push(d.toString()));
    child.on("close", resolve);
  });
  assert.equal(code, 0, out.join("").slice(-3000));
  return { report: JSON.parse(fs.readFileSync(json, "utf8")) as BenchReport, printed: out.join("") };
}

test("a one-second bench run measures every asked-for target and reports it", { timeout: 240_000 }, async () => {
  const { report, printed } = await runBench("ceiling,passthrough:hop,gantry:hop,gantry:gantry.about");
  const byId = new Map(report.rows.map((r) => [r.id, r]));
  const hop = report.rows.find((r) => r.group === "passthrough")?.ability;
  assert.ok(hop, `a passthrough row; rows: ${[...byId.keys()].join(", ")}`);
  // Report order: ceiling, passthrough rows, then the full chain in the order asked for.
  assert.deepEqual([...byId.keys()], ["ceiling", `passthrough:${hop}`, `gantry:${hop}`, "gantry:gantry.about"]);
  for (const r of report.rows) {
    assert.ok(r.load.responses > 0, `${r.id} answered`);
    // Only the expected status, no failed request (a slice with no answer is speed: not judged here).
    assert.deepEqual(Object.keys(r.load.statuses), [String(r.expectStatus)], `${r.id}: ${r.unexpected}`);
    assert.equal(r.load.errors, 0, `${r.id}: ${r.unexpected}`);
    assert.ok(r.peakRssBytes > 0 && r.pssAfterBytes > 0 && r.frontRssBytes > 0, `${r.id} memory`);
    assert.ok(r.load.p50 <= r.load.p99, `${r.id} percentiles`);
  }
  // The two sides of the hop comparison ran in alternating slices; the rest ran once.
  assert.equal(byId.get(`passthrough:${hop}`)!.slices, 2);
  assert.equal(byId.get(`gantry:${hop}`)!.slices, 2);
  assert.equal(byId.get("gantry:gantry.about")!.slices, undefined);
  assert.equal(
    byId.get(`gantry:${hop}`)!.load.statuses["501"],
    byId.get(`gantry:${hop}`)!.load.responses,
    "the unwired hop answers 501",
  );
  assert.match(printed, /target: full chain vs passthrough floor, same ability/);
  assert.match(printed, /### Throughput and latency/);
});

test("the scale-out group measures 1 gateway × 1 replica and 2 × 2, and the calls reach both replicas", {
  timeout: 180_000,
}, async () => {
  const { report, printed } = await runBench("scaleout");
  assert.deepEqual(report.skipped, [], "nothing skipped");
  assert.deepEqual(
    report.rows.map((r) => [r.id, r.scaleout]),
    [
      ["scaleout:1x1", { gateways: 1, replicas: 1 }],
      ["scaleout:2x2", { gateways: 2, replicas: 2 }],
    ],
  );
  for (const r of report.rows) {
    assert.ok(r.load.responses > 0, `${r.id} answered`);
    // Every answer was a 200 and no request failed. A slice too short for any answer on a loaded
    // machine is reported (`unexpected`) but is speed, which this test does not judge.
    assert.deepEqual(Object.keys(r.load.statuses), ["200"], `${r.id}: ${r.unexpected}`);
    assert.equal(r.load.errors, 0, `${r.id}: ${r.unexpected}`);
    assert.equal(r.slices, 2, `${r.id} ran in alternating slices`);
  }
  // Every process of the 2 × 2 configuration did work: the load reached both gateways, and each
  // gateway's calls reached both workspace replicas.
  const wide = report.rows[1].cpu.byProcess;
  for (const name of ["gateway", "gateway-2", "workspace", "workspace-2", "redis"]) {
    const p = wide.find((x) => x.name === name);
    assert.ok(p && p.cores > 0, `${name} worked: ${JSON.stringify(wide)}`);
  }
  assert.equal(
    report.rows[0].cpu.byProcess.filter((p) => p.name.startsWith("workspace")).length,
    1,
    "1 × 1 counts one replica",
  );
  assert.match(printed, /### Scale-out/);
  assert.match(printed, /target: scale-out: contact\.get, 2 gateways × 2 replicas vs 1 gateway × 1 replica/);
});
