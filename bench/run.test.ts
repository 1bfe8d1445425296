/**
 * `npm run bench` end to end, in miniature, so the bench cannot rot between the runs that write
 * docs/benchmarks.md: the ceiling, a Gantry stack, the passthrough floor and the full chain on the
 * hop ability (interleaved), and `gantry.about`, 1 s each, nothing written to docs/. It asserts what
 * the run reports, never how fast anything was (speed is the bench's job, not the tests').
 * express-gateway is left out: installing it needs the npm registry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BenchReport } from "./lib/report.ts";

test("a one-second bench run measures every asked-for target and reports it", { timeout: 240_000 }, async () => {
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-run-")), "run.json");
  const args = [
    "--duration",
    "1",
    "--warmup",
    "0",
    "--slices",
    "2",
    "--targets",
    "ceiling,passthrough:hop,gantry:hop,gantry:gantry.about",
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

  const report = JSON.parse(fs.readFileSync(json, "utf8")) as BenchReport;
  const byId = new Map(report.rows.map((r) => [r.id, r]));
  const hop = report.rows.find((r) => r.group === "passthrough")?.ability;
  assert.ok(hop, `a passthrough row; rows: ${[...byId.keys()].join(", ")}`);
  // Report order: ceiling, passthrough rows, then the full chain in the order asked for.
  assert.deepEqual([...byId.keys()], ["ceiling", `passthrough:${hop}`, `gantry:${hop}`, "gantry:gantry.about"]);
  for (const r of report.rows) {
    assert.ok(r.load.responses > 0, `${r.id} answered`);
    assert.equal(r.unexpected, undefined, `${r.id}: ${r.unexpected}`);
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
  const printed = out.join("");
  assert.match(printed, /target: full chain vs passthrough floor, same ability/);
  assert.match(printed, /### Throughput and latency/);
});
