/**
 * The runner's check before it starts Postgres on a cluster (`checkNotRunning`): a lock file whose
 * process is gone is removed (Postgres would refuse one whose pid some other process now has), a
 * server still shutting down is waited for, one still running is refused. A process working in the
 * cluster's directory stands in for a server: every Postgres process works there.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { checkNotRunning } from "./postgres.ts";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function cluster(pid: number, state: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pg-lock-"));
  dirs.push(dir);
  // postmaster.pid: pid, data directory, start time, port, socket dir, listen address, shmem key, state.
  fs.writeFileSync(path.join(dir, "postmaster.pid"), `${pid}\n${dir}\n0\n5432\n\n127.0.0.1\n0 0\n${state}\n`);
  return dir;
}

function holder(dir: string, seconds: number) {
  const child = spawn("sleep", [String(seconds)], { cwd: dir, stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, exited };
}

test("a lock file whose pid now belongs to another process is stale: removed, start goes on", async () => {
  const dir = cluster(process.pid, "ready   ");
  await checkNotRunning(dir, 1_000);
  assert.equal(fs.existsSync(path.join(dir, "postmaster.pid")), false);
});

test("a server still running on the cluster is refused at once, naming it", async () => {
  const dir = cluster(0, "ready   ");
  const h = holder(dir, 30);
  const pid = h.child.pid as number;
  fs.writeFileSync(path.join(dir, "postmaster.pid"), `${pid}\n${dir}\n0\n5432\n\n127.0.0.1\n0 0\nready   \n`);
  const t0 = Date.now();
  await assert.rejects(checkNotRunning(dir, 5_000), new RegExp(`pid ${pid}\\) is still running`));
  assert.ok(Date.now() - t0 < 2_000, "refused without waiting");
  h.child.kill();
  await h.exited;
});

test("a server shutting down is waited for, then the start goes on", async () => {
  const dir = cluster(0, "stopping");
  const h = holder(dir, 1);
  fs.writeFileSync(path.join(dir, "postmaster.pid"), `${h.child.pid}\n${dir}\n0\n5432\n\n127.0.0.1\n0 0\nstopping\n`);
  const t0 = Date.now();
  await checkNotRunning(dir, 10_000);
  assert.ok(Date.now() - t0 >= 500, "waited for the stopping server");
  assert.equal(h.child.exitCode, 0);
});
