/**
 * k8s/cluster/status.sh tells a running cluster from the pid files a killed run leaves behind, so
 * that CI's real-cluster test (cluster.test.ts) runs instead of skipping as "already running", and
 * down.sh never signals a pid the kernel has since given to another process. Checked on a run
 * directory of its own (GANTRY_K8S_RUN): no cluster is started or stopped here.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const STATUS = fileURLToPath(new URL("./cluster/status.sh", import.meta.url));
const run = mkdtempSync(join(tmpdir(), "gantry-k8s-run-"));
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(run, { recursive: true, force: true });
});

const status = () =>
  spawnSync("bash", [STATUS], { encoding: "utf8", env: { ...process.env, GANTRY_K8S_RUN: run } }).stdout.trim();
/** A live `sleep`, started under the name argv0 (what /proc/<pid>/cmdline shows first). */
function sleeper(argv0 = "sleep"): number {
  const c = spawn("sleep", ["120"], { argv0, stdio: "ignore" });
  children.push(c);
  assert.ok(c.pid);
  return c.pid;
}
const pidFile = (name: string, pid: number | string) => writeFileSync(join(run, `${name}.pid`), `${pid}\n`);

test("no pid files: none", () => {
  assert.equal(status(), "none");
});

test("pid files of processes that have exited: stale", () => {
  const dead = spawnSync("true").pid;
  pidFile("etcd", dead);
  pidFile("kube-apiserver", "");
  assert.equal(status(), "stale");
});

test("pid files whose pids now belong to other programs: stale", () => {
  pidFile("etcd", sleeper());
  pidFile("kubelet", process.pid);
  assert.equal(status(), "stale");
});

test("one recorded process running as the program it was started as: live", async () => {
  pidFile("containerd", sleeper("containerd"));
  // spawn returns before the child has exec'd; until then its cmdline is node's
  for (let i = 0; i < 50 && status() !== "live"; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(status(), "live");
});
