/**
 * `npm start` as a new user meets it (issue 20, item 5): the banner names where the data really is
 * — including a Postgres cluster kept outside the data directory when the `postgres` user cannot
 * reach it — and the reset command lists exactly those paths, which exist and survive a stop.
 * The stop comes as a supervisor sends it, SIGTERM twice: the second must not turn it into a kill.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "./stack.ts";

test("npm start prints the real data paths and a reset command that names them; SIGTERM twice still stops gracefully", {
  timeout: 180_000,
}, async () => {
  // A private parent (0700), as a clone in root's home is: the postgres user cannot pass through it.
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-start-"));
  const dataDir = path.join(parent, "data");
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "infra/runner/start.ts")], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: "0", GANTRY_DATA_DIR: dataDir, NO_COLOR: "1", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d) => {
    output += d;
  });
  child.stderr.on("data", (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let resetPaths: string[] = [];
  try {
    const deadline = Date.now() + 150_000;
    while (!/Press Ctrl-C to stop/.test(output)) {
      assert.ok(Date.now() < deadline, `npm start did not get ready:\n${output.slice(-3000)}`);
      assert.equal(child.exitCode, null, `npm start exited:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const reset = /reset\s+kept after stop; to start empty: stop, then rm -rf (.+)$/m.exec(output);
    assert.ok(reset, `no reset line in:\n${output}`);
    resetPaths = reset[1]
      .trim()
      .split(/\s+/)
      .map((p) => path.resolve(REPO_ROOT, p));
    const cluster = resetPaths.find((p) => fs.existsSync(path.join(p, "PG_VERSION")));
    assert.ok(cluster, `the reset paths (${resetPaths.join(", ")}) include the Postgres cluster`);
    assert.ok(resetPaths.includes(path.join(dataDir, "nats")), "the NATS store is in the reset command");
    if (path.dirname(cluster) !== dataDir) {
      // Kept elsewhere: the banner must say where, with the full path.
      assert.match(output, new RegExp(`postgres cluster in ${cluster.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    }
    assert.match(output, new RegExp(`data\\s+${dataDir.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  } finally {
    child.kill("SIGTERM");
    for (let i = 0; i < 100 && !/SIGTERM: stopping/.test(output); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0, output.slice(-2000));
  assert.match(output, /SIGTERM again: still stopping/);
  assert.match(output, /stopped in [0-9.]+ s/, "the stop finished gracefully");
  for (const p of resetPaths.filter((p) => !p.endsWith("admin-key")))
    assert.ok(fs.existsSync(p), `${p} is kept after stop, as the banner says`);
  for (const p of resetPaths) fs.rmSync(p, { recursive: true, force: true });
  fs.rmSync(parent, { recursive: true, force: true });
  const clusterParent = resetPaths.find((p) => p.startsWith("/var/tmp/gantry-"));
  if (clusterParent) fs.rmSync(path.dirname(clusterParent), { recursive: true, force: true });
});
