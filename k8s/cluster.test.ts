/**
 * The real single-node cluster of k8s/cluster/ (issue 29, item 1): started here from the binaries
 * .ci/run builds (GANTRY_K8S_BIN_DIR), used as a user would use any cluster, and torn down.
 *  - a Deployment of a locally built image (busybox packed by k8s/cluster/image.sh, imported into
 *    containerd, never pulled) becomes two Running pods with IPs from the CNI bridge;
 *  - one pod reaches the others' IPs (pod-to-pod traffic over the bridge);
 *  - a Service name resolves through CoreDNS and its ClusterIP reaches both replicas through
 *    kube-proxy's iptables rules;
 *  - `kubectl logs` reads a container's output through the kubelet;
 *  - `npm run k8s:e2e` (k8s/e2e.ts) on it: the chart installed from its defaults plus local image
 *    names, `helm test`, a user's smoke through the gateway Service, replicas sharing calls, a pod
 *    lost and a rollout under load, each with its own checks; this test passes when it prints
 *    `k8s e2e: N passed, 0 failed`;
 *  - down.sh leaves no process, bridge, iptables chain or mount behind.
 * Skipped, with the reason, without the binaries, without root, or when a cluster started by hand
 * (k8s/cluster/up.sh) is running: the test never takes over or stops someone else's cluster. Pid
 * files left by a killed run are not a running cluster (k8s/cluster/status.sh, stale-cluster.test.ts).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HELM } from "./scripts/tools.ts";

const CLUSTER = fileURLToPath(new URL("./cluster/", import.meta.url));
const BIN_DIR = process.env.GANTRY_K8S_BIN_DIR ?? "";
const STATE = "/var/lib/gantry-k8s";
const RUN = process.env.GANTRY_K8S_RUN ?? "/run/gantry-k8s";
const KUBECONFIG = join(STATE, "pki", "admin.kubeconfig");
const NS = "cluster-test";

/** k8s/cluster/status.sh's word for the cluster its pid files describe: live, stale or none. */
function clusterStatus(): string {
  return spawnSync("bash", [join(CLUSTER, "status.sh")], { encoding: "utf8" }).stdout.trim();
}

function skipReason(): string | false {
  if (!BIN_DIR)
    return "GANTRY_K8S_BIN_DIR is not set (.ci/run sets it once k8s/cluster/build.sh has built the binaries)";
  if (!existsSync(join(BIN_DIR, "kube-apiserver"))) return `no kube-apiserver in GANTRY_K8S_BIN_DIR=${BIN_DIR}`;
  if (process.getuid?.() !== 0) return "the cluster needs root (containerd, kubelet, iptables)";
  // Stale pid files of a killed run do not count: up.sh clears them (down.sh) before it starts.
  if (clusterStatus() === "live") return `a cluster is already running (${RUN}); stop it with k8s/cluster/down.sh`;
  return false;
}
const skip = skipReason();

function sh(cmd: string, args: string[], timeoutMs = 60_000, input?: string) {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    input,
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, GANTRY_K8S_BIN_DIR: BIN_DIR, KUBECONFIG, HELM },
  });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function kubectl(args: string[], input?: string, timeoutMs = 60_000): string {
  const r = sh(join(BIN_DIR, "kubectl"), args, timeoutMs, input);
  assert.equal(r.code, 0, `kubectl ${args.join(" ")} failed:\n${r.err}${r.out}`);
  return r.out;
}
/** Runs a command in the client pod; the output is what the command printed. */
const inClient = (...cmd: string[]) => kubectl(["-n", NS, "exec", "client", "--", ...cmd]).trim();
/**
 * Sends a raw HTTP/1.0 request from the client pod with busybox's nc (not its wget: Debian's static
 * busybox wget crashes, SIGSEGV, on any URL) and returns the answer's status line and body. `linger`
 * keeps nc's input open that many seconds: Node's HTTP server drops a request whose sender
 * half-closes before the answer is written, which is what nc does at the end of its input.
 */
function http(host: string, port: number, request: string, linger = 0): { status: string; body: string } {
  const answer = kubectl(
    [
      "-n",
      NS,
      "exec",
      "-i",
      "client",
      "--",
      "sh",
      "-c",
      `cat > /tmp/req; (cat /tmp/req; sleep ${linger}) | nc -w 10 ${host} ${port}`,
    ],
    request,
  );
  const status = answer.slice(0, answer.indexOf("\r\n"));
  return { status, body: answer.slice(answer.indexOf("\r\n\r\n") + 4).trim() };
}
function httpGet(host: string, port: number): string {
  const { status, body } = http(host, port, "GET / HTTP/1.0\r\n\r\n");
  assert.match(status, /^HTTP\/1\.[01] 200 /, `GET http://${host}:${port}/ from the client pod: ${status}`);
  return body;
}

const WORKLOAD = `
apiVersion: v1
kind: Namespace
metadata: {name: ${NS}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: echo, namespace: ${NS}}
spec:
  replicas: 2
  selector: {matchLabels: {app: echo}}
  template:
    metadata: {labels: {app: echo}}
    spec:
      containers:
      - name: echo
        image: gantry.local/busybox:1
        imagePullPolicy: Never
        # Each replica answers with its own pod name, so a caller can tell which one it reached.
        command: [sh, -c, 'mkdir -p /tmp/www && hostname > /tmp/www/index.html && echo "serving as $(hostname)" && exec httpd -f -v -p 8080 -h /tmp/www']
        ports: [{containerPort: 8080}]
        readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: ${NS}}
spec:
  selector: {app: echo}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: ${NS}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: client
    image: gantry.local/busybox:1
    imagePullPolicy: Never
    command: [sleep, "3600"]
`;

describe("a real single-node Kubernetes cluster (k8s/cluster)", { skip }, () => {
  let started = false;
  before(
    () => {
      const t0 = Date.now();
      const up = sh(join(CLUSTER, "up.sh"), [], 600_000);
      started = true; // down.sh also cleans up after a start that failed half-way
      assert.equal(up.code, 0, `k8s/cluster/up.sh failed:\n${up.err}${up.out}`);
      console.log(`cluster up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      kubectl(["apply", "-f", "-"], WORKLOAD);
      kubectl(["-n", NS, "rollout", "status", "deployment/echo", "--timeout=180s"], undefined, 200_000);
      kubectl(["-n", NS, "wait", "--for=condition=Ready", "pod/client", "--timeout=120s"], undefined, 130_000);
    },
    { timeout: 900_000 },
  );
  after(() => {
    if (started) sh(join(CLUSTER, "down.sh"), [], 180_000);
  });

  const echoPods = () =>
    JSON.parse(kubectl(["-n", NS, "get", "pods", "-l", "app=echo", "-o", "json"])).items as Array<{
      metadata: { name: string };
      status: { podIP: string; phase: string };
    }>;

  test("the Deployment's pods run the locally built image with pod IPs from the bridge", () => {
    const pods = echoPods();
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.equal(p.status.phase, "Running");
      assert.match(p.status.podIP, /^10\.88\.\d+\.\d+$/);
    }
    const node = JSON.parse(kubectl(["get", "node", "localhost", "-o", "json"]));
    assert.equal(node.status.conditions.find((c: { type: string }) => c.type === "Ready").status, "True");
  });

  test("pod-to-pod: the client pod reaches each replica by its pod IP", () => {
    for (const p of echoPods()) {
      assert.equal(httpGet(p.status.podIP, 8080), p.metadata.name);
    }
  });

  test("a Service name resolves through CoreDNS and its ClusterIP reaches both replicas through kube-proxy", () => {
    const clusterIP = kubectl(["-n", NS, "get", "service", "echo", "-o", "jsonpath={.spec.clusterIP}"]).trim();
    assert.match(clusterIP, /^10\.96\.\d+\.\d+$/);
    const lookup = inClient("nslookup", `echo.${NS}.svc.cluster.local`);
    assert.ok(lookup.includes(clusterIP), `nslookup did not answer ${clusterIP}:\n${lookup}`);
    // The short name, through the pod's DNS search path, as an application would call it.
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add(httpGet("echo", 80));
    assert.deepEqual(
      [...seen].sort(),
      echoPods()
        .map((p) => p.metadata.name)
        .sort(),
    );
  });

  test("kubectl logs reads a container's output through the kubelet", () => {
    const name = echoPods()[0].metadata.name;
    assert.match(kubectl(["-n", NS, "logs", name]), new RegExp(`serving as ${name}`));
  });

  test("npm run k8s:e2e: the chart from its defaults, a user's smoke, replicas, pod loss and a rollout", {
    timeout: 1_800_000,
  }, () => {
    // k8s/e2e.ts reuses this running cluster and leaves stopping it to this file.
    const e2e = sh(process.execPath, [join(CLUSTER, "..", "e2e.ts")], 1_800_000);
    console.log(e2e.out.trim());
    if (e2e.err.trim()) console.log(e2e.err.trim());
    const summary = /^k8s e2e: (\d+) passed, (\d+) failed$/m.exec(e2e.out);
    assert.ok(summary, `k8s/e2e.ts printed no summary line (exit ${e2e.code})`);
    assert.equal(summary[2], "0", "k8s e2e checks failed (above)");
    assert.ok(Number(summary[1]) >= 12, `only ${summary[1]} checks ran`);
    assert.equal(e2e.code, 0);
  });

  test("down.sh leaves no process, bridge, iptables rule or mount behind", () => {
    const pids = readdirSync(RUN)
      .filter((f) => f.endsWith(".pid"))
      .map((f) => Number(readFileSync(join(RUN, f), "utf8")));
    const down = sh(join(CLUSTER, "down.sh"), [], 180_000);
    started = false;
    assert.equal(down.code, 0, down.err);
    for (const pid of pids) assert.equal(existsSync(`/proc/${pid}`), false, `pid ${pid} still running`);
    assert.equal(existsSync(STATE) || existsSync(RUN), false, "state directories remain");
    const mounts = readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .filter((l) => l.includes(STATE) || l.includes(RUN));
    assert.deepEqual(mounts, []);
    assert.equal(sh("ip", ["link", "show", "gantry0"]).code, 1, "the bridge gantry0 remains");
    const rules = sh("iptables-save", [])
      .out.split("\n")
      .filter((l) => l.includes("KUBE-"));
    assert.deepEqual(rules, [], "kube-proxy's iptables rules remain");
    const shims = sh("pgrep", ["-f", `containerd-shim-runc-v2 .*${RUN}`]).out.trim();
    assert.equal(shims, "", "containerd shims remain");
  });
});
