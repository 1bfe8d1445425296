/**
 * The whole API fuzzed from its OpenAPI document (issue 13): runs `npm run fuzz`
 * (infra/scripts/fuzz.ts: a whole stack on free ports, Schemathesis against its `/openapi.json` with
 * `not_a_server_error`, `status_code_conformance`, `content_type_conformance` and
 * `response_schema_conformance`, bounded in examples and minutes) and requires 0 failures.
 *
 * Runs when `SCHEMATHESIS_BIN` names the Schemathesis executable (`.ci/run` installs it in a cached
 * virtualenv and exports it); skipped with the reason otherwise, so a local `npm test` stays quick.
 * On a failure the message carries Schemathesis's summary and the directory with its full output,
 * the JUnit report and the stack's log.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../runner/stack.ts";

/** One `==== NAME ====` section of Schemathesis's output, up to the next section; "" when absent. */
function section(output: string, name: string): string {
  const lines = output.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^=+ ${name} =+$`).test(l.trim()));
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && /^=+ .+ =+$/.test(l.trim()));
  return lines.slice(start, end < 0 ? undefined : end + 1).join("\n");
}

const bin = process.env.SCHEMATHESIS_BIN;
const skip = !bin
  ? "SCHEMATHESIS_BIN is not set (.ci/run installs Schemathesis and sets it; or run `npm run fuzz`)"
  : !fs.existsSync(bin)
    ? `SCHEMATHESIS_BIN=${bin} does not exist`
    : false;

test("Schemathesis finds no failure in any operation of /openapi.json", { skip, timeout: 540_000 }, async (t) => {
  const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-fuzz-"));
  let output = "";
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ["infra/scripts/fuzz.ts"], {
      cwd: REPO_ROOT,
      env: { ...process.env, FUZZ_REPORT_DIR: reportDir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.on("close", (c) => resolve(c ?? 1));
  });
  const summary = section(output, "SUMMARY") || output.slice(-5_000);
  const failures = section(output, "FAILURES").slice(0, 20_000);
  for (const line of output.split("\n").filter((l) => l.startsWith("fuzz: "))) t.diagnostic(line);
  for (const line of summary.split("\n").filter((l) => l.trim() && !/^=+/.test(l.trim()))) t.diagnostic(line.trim());
  assert.equal(code, 0, `schemathesis failed (exit ${code}); full output in ${reportDir}\n${failures}\n${summary}`);
  fs.rmSync(reportDir, { recursive: true, force: true });
});
