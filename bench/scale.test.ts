/**
 * `npm run bench -- --scale` in miniature (100 and 1,000 rows, nothing written to docs/), so the
 * scale run cannot rot between the full runs (10³ to 10⁶ rows, minutes; never in `npm test`): the
 * receipts and contacts parts seed, check their proofs or pages, and print a curve per operation
 * with a point at each size (the keys and memory parts have tests of their own). It asserts what
 * the run reports, never how fast anything was.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { renderScaleSvg, type ScaleReport } from "./lib/scale-report.ts";

test("a small --scale run measures every curve at every size and prints its tables", { timeout: 300_000 }, async () => {
  const json = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-scale-")), "scale.json");
  const out: string[] = [];
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        path.join(import.meta.dirname, "run.ts"),
        "--scale",
        "--scale-sizes",
        "100,1000",
        "--scale-parts",
        "receipts,contacts",
        "--no-write",
        "--json",
        json,
      ],
      { cwd: path.join(import.meta.dirname, ".."), env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    child.stdout.on("data", (d: Buffer) => out.push(d.toString()));
    child.stderr.on("data", (d: Buffer) => out.push(d.toString()));
    child.on("close", resolve);
  });
  const printed = out.join("");
  assert.equal(code, 0, printed.slice(-3000));
  const report = JSON.parse(fs.readFileSync(json, "utf8")) as ScaleReport;
  assert.deepEqual(report.failed, []);
  assert.deepEqual(
    report.curves.map((c) => c.id),
    [
      "receipt.append",
      "receipt.proof",
      "receipt.consistency",
      "contact.list:first",
      "contact.list:middle",
      "contact.list:deep",
    ],
  );
  for (const c of report.curves) {
    assert.deepEqual(
      c.points.map((p) => p.rows),
      [100, 1000],
      `${c.id} has a point at each size`,
    );
    for (const p of c.points) {
      assert.ok(p.p50 > 0 && p.p50 <= p.p99 && Number.isFinite(p.p99), `${c.id} at ${p.rows}: ${p.p50} / ${p.p99}`);
      assert.equal(p.samples, 200, `${c.id} at ${p.rows} samples`);
    }
    assert.match(printed, new RegExp(`#### ${c.label.replace(/[.()]/g, "\\$&")} \\(\`${c.id}\`\\)`));
  }
  // An inclusion proof reads one stored node per level: more at 1,000 leaves than at 100.
  const proof = report.curves.find((c) => c.id === "receipt.proof")!;
  assert.ok(proof.points[1].extra!.nodesRead > proof.points[0].extra!.nodesRead, JSON.stringify(proof.points));
  assert.match(printed, /\| 1,000 \| [0-9.]+ \| [0-9.]+ \| 200 \|/);
  const svg = renderScaleSvg(report);
  assert.equal(svg.match(/<polyline /g)?.length, report.curves.length, "one line per curve");
});
