/**
 * @module bench/lib/gantry
 * Gantry under test: a whole local stack (real Postgres, NATS, every area service) started the way
 * the integration tests start it, plus a gateway process the bench starts itself, with exactly the
 * command and environment the runner would use (so it can be restarted with `--cpu-prof`), a bench
 * key inserted straight into the keys table, and the passthrough server.
 */
import path from "node:path";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { AREA_SERVICES, type AreaService, type CallContext, loadCallKeys } from "@gantry/kit";
import { abilityById, catalogue } from "@gantry/proto/catalogue";
import {
  COMPILE_CACHE_DIR,
  NODE_PROCESS_ARGS,
  NODE_PROCESS_ENV,
  REPO_ROOT,
  VALIDATOR_CACHE_DIR,
} from "../../infra/runner/stack.ts";
import { freePort } from "../../infra/runner/ports.ts";
import { defaultSeedCache, warmSeed } from "../../infra/runner/seed-cluster.ts";
import { httpHealthy } from "../../infra/runner/health.ts";
import type { StackOptions } from "../../infra/runner/stack.ts";
import { startTestStack, type TestStack } from "../../infra/testing/stack.ts";
import { Dispatcher } from "../../gateway/src/dispatch.ts";
import { startChild, type Child } from "./child.ts";

export interface BenchKey {
  id: string;
  key: string;
  context: Omit<CallContext, "requestId">;
}

/** What the bench sends to one ability, and what it must answer. */
export interface Workload {
  ability: string;
  input: unknown;
  expectStatus: number;
  /** Why this ability is measured / what its answer means. */
  note: string;
  /**
   * The target's name when an ability is measured more than one way (`web.browse:browser`,
   * `contact.get:run`); default the ability id.
   */
  name?: string;
  /** Request envelopes sent in turn instead of `{input}` (e.g. each naming another trust run). */
  envelopes?: () => unknown[];
  /** Connections for this target instead of `--connections` (a browser serves a few pages at a time). */
  connections?: number;
}

export const RATE_LIMIT_HIGH = "1000000000";

/** `shape`: which services, replicas, Redis (the scale-out group); default every service, once. */
export async function startGantryStack(
  shape: Pick<StackOptions, "services" | "replicas" | "redis"> = {},
): Promise<{ ts: TestStack; seconds: number }> {
  const t0 = performance.now();
  const ts = await startTestStack({
    ...shape,
    gateways: 0,
    healthTimeoutMs: 120_000,
    // Measured as production runs: no result-contract check (tests turn it on). The memory target
    // seeds lexical-hash-v1 vectors by SQL, so it keeps that embedder (and its published figures
    // stay comparable); the sentence model's cost is its own question. web.research is switched
    // off so "the hop" (full pipeline, one gRPC hop, a 501) stays measurable now that every
    // ability is wired; web.browse reads the bench's own page on loopback.
    env: {
      RATE_LIMIT_DEFAULT: RATE_LIMIT_HIGH,
      LOG_LEVEL: "info",
      GANTRY_CHECK_RESULTS: "0",
      EMBEDDER: "lexical",
      GANTRY_DISABLED_ABILITIES: "web.research",
      WEB_ALLOW_LOOPBACK: "true",
    },
  });
  return { ts, seconds: (performance.now() - t0) / 1000 };
}

/**
 * Starts `node gateway/src/main.ts` (or `main`) against the stack; `nodeOptions` e.g. `--cpu-prof`;
 * `env` overrides the stack's (e.g. one replica's address), `name` labels its output.
 */
export async function startGateway(
  ts: TestStack,
  nodeOptions?: string,
  main = "gateway/src/main.ts",
  { env: extra = {}, name = "gateway" }: { env?: Record<string, string>; name?: string } = {},
): Promise<Child & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...NODE_PROCESS_ENV,
    NODE_COMPILE_CACHE: COMPILE_CACHE_DIR,
    // As the runner gives every gateway (infra/runner/stack.ts, baseEnv): the stack's services have it too.
    GANTRY_VALIDATOR_CACHE: VALIDATOR_CACHE_DIR,
    ...process.env,
    ...ts.stack.env,
    ...extra,
    PORT: String(port),
    HOST: "127.0.0.1",
  };
  if (!ts.stack.env.REDIS_URL) delete env.REDIS_URL;
  delete env.NODE_TEST_CONTEXT;
  if (nodeOptions) env.NODE_OPTIONS = [process.env.NODE_OPTIONS, nodeOptions].filter(Boolean).join(" ");
  const child = await startChild({
    name,
    command: process.execPath,
    // The runner's Node options, as `npm start` would start it.
    args: [...NODE_PROCESS_ARGS, main],
    cwd: REPO_ROOT,
    env,
    health: () => httpHealthy(url),
    timeoutMs: 60_000,
  });
  return Object.assign(child, { url });
}

export async function startPassthrough(ts: TestStack, key: BenchKey): Promise<Child & { url: string }> {
  const child = await startChild({
    name: "passthrough",
    command: process.execPath,
    // The gateway's own Node flags and environment, so the floor and the full chain differ by the
    // pipeline only (without them an idle passthrough's garbage collection landed in the next slice).
    args: [...NODE_PROCESS_ARGS, path.join(import.meta.dirname, "..", "servers", "passthrough.ts")],
    cwd: REPO_ROOT,
    env: {
      ...NODE_PROCESS_ENV,
      ...process.env,
      ...ts.stack.env,
      PORT: "0",
      BENCH_CALL_CONTEXT: JSON.stringify(key.context),
    },
    readyLine: /^READY (\d+)/,
  });
  return Object.assign(child, { url: `http://127.0.0.1:${child.port}` });
}

export async function insertBenchKey(ts: TestStack): Promise<BenchKey> {
  const collections = ["bench"];
  const { id, key } = await ts.insertKey({ tenant: "bench", name: "bench", scopes: ["*"], collections });
  return {
    id,
    key,
    context: {
      tenant: "bench",
      keyTenant: "bench",
      keyId: id,
      scopes: ["*"],
      collections,
      products: [],
      admin: false,
      subTenants: false,
    },
  };
}

export interface CallOutcome {
  status: number;
  body: Record<string, unknown>;
}

export async function call(url: string, key: string, ability: string, input: unknown): Promise<CallOutcome> {
  const res = await fetch(`${url}/v1/abilities/${ability}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  return { status: res.status, body };
}

/** Which owned abilities each running service has wired (Describe RPC). */
export async function wiredAbilities(ts: TestStack): Promise<Map<string, boolean>> {
  const addrs = Object.fromEntries(AREA_SERVICES.map((s) => [s.name, ts.stack.env[s.addrEnv]])) as Record<
    AreaService,
    string
  >;
  const d = new Dispatcher(addrs, 2_000, false, loadCallKeys("gateway", ts.stack.env));
  const out = new Map<string, boolean>();
  try {
    for (const s of AREA_SERVICES) {
      for (const a of (await d.describe(s.name)) ?? []) out.set(a.id, a.wired);
    }
  } finally {
    d.close();
  }
  return out;
}

/** trust.preflight's limit of actions per run. */
export const PERMITS_PER_RUN = 50;

/**
 * Envelopes that each name another trust run holding permits for exactly `input`: `permits` in all,
 * in runs of {@link PERMITS_PER_RUN}. Sent in turn, each request consumes one permit; a run is
 * reused once per round. Made with 8 preflight calls in flight.
 */
async function runBoundEnvelopes(
  gatewayUrl: string,
  key: string,
  ability: string,
  input: unknown,
  permits: number,
): Promise<unknown[]> {
  const runs = Math.ceil(permits / PERMITS_PER_RUN);
  const actions = Array.from({ length: PERMITS_PER_RUN }, () => ({ ability, input }));
  const envelopes: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < runs) {
      next++;
      const run = await call(gatewayUrl, key, "trust.preflight", { task: `bench ${ability}`, actions });
      const runId = (run.body.result as Record<string, unknown> | undefined)?.id;
      if (run.status !== 200 || typeof runId !== "string")
        throw new Error(`trust.preflight answered ${run.status} (${String(run.body.code ?? "")})`);
      envelopes.push({ input, context: { runId } });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return envelopes;
}

/**
 * Envelopes of `input`, each under its own idempotencyKey, so every request is a first use (a
 * repeated key would measure the cheaper replay). More than a run sends at express-gateway's rate.
 */
function keyedEnvelopes(input: unknown, count = 100_000): unknown[] {
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, i) => ({
    input: { ...(input as object), idempotencyKey: `bench-${run}-${i}` },
  }));
}

/** Sentences the bench article's paragraphs are made of, three per paragraph in turn. */
const ARTICLE_SENTENCES = [
  "Northwind Studio ships invoices on the first of the month, and every invoice names the order it bills.",
  "The ledger balances to zero across every account after each payment, and refunds post their own entries.",
  "Customers reach support by email or chat; a reply goes out within one working day, weekends included.",
  "Each quarter the team reconciles the bank statement line by line against the journal before it closes.",
  "Currency conversions are booked at the day's published rate, and the difference goes to its own account.",
  "Payouts to suppliers leave on Thursdays, in one batch, after two people have approved the list.",
  "A late payment gets a friendly reminder after seven days and a phone call after fourteen.",
  "The books close on the fifth working day, and the summary reaches the founders the morning after.",
];

/** The bench article's HTML: a title, a byline and 19 paragraphs of text, about 6 KB (the notes give the exact size). */
export function benchArticle(): string {
  const paragraphs = Array.from({ length: 19 }, (_, i) => {
    const text = [0, 1, 2].map((k) => ARTICLE_SENTENCES[(i + k * 3) % ARTICLE_SENTENCES.length]).join(" ");
    return `<p>${text}</p>`;
  }).join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench article</title></head><body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header><article><h1>How Northwind closes its books</h1><p class="byline">By Ada Obi</p>${paragraphs}</article><footer>© Northwind</footer></body></html>`;
}

const ARTICLE_BYTES = Buffer.byteLength(benchArticle()).toLocaleString("en-US");

let page: Promise<string> | undefined;

/**
 * The page web.browse reads in the bench: {@link benchArticle} served by this process on loopback,
 * the same bytes every time. Started on first use; it lives as long as the run.
 */
export function benchPage(): Promise<string> {
  page ??= new Promise((resolve) => {
    const html = benchArticle();
    const server = http.createServer((req, res) => {
      if (req.url === "/article") res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
      else res.writeHead(404).end();
    });
    server.listen(0, "127.0.0.1", () => {
      server.unref();
      resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}/article`);
    });
  });
  return page;
}

/** Abilities preferred as "the hop" (an unwired ability: full pipeline + gRPC hop, then 501), in order. */
const HOP_PREFERENCE = ["web.research", "web.browse", "qa.browser_check", "trust.status", "payment.status"];

/**
 * Picks the abilities to measure through the full chain. Each is probed once; one that does not
 * answer as expected is skipped with the reason. `gantry.about` never hops (the gateway answers
 * it); the unwired one hops and answers 501 from the owning service.
 */
export async function planWorkloads(
  gatewayUrl: string,
  ts: TestStack,
  key: BenchKey,
  log: (l: string) => void,
  opts: { permits: number } = { permits: 20_000 },
): Promise<{ workloads: Map<string, Workload>; skipped: Map<string, string> }> {
  const workloads = new Map<string, Workload>();
  const skipped = new Map<string, string>();
  const wired = await wiredAbilities(ts);

  workloads.set("gantry.about", {
    ability: "gantry.about",
    input: {},
    expectStatus: 200,
    note: "answered inside the gateway (no gRPC hop)",
  });

  const unwired = [...HOP_PREFERENCE, ...catalogue.map((a) => a.id).sort()].filter((id) => wired.get(id) === false);
  const hop = unwired[0];
  if (hop) {
    const input = abilityById.get(hop)!.example;
    const probe = await call(gatewayUrl, key.key, hop, input);
    if (probe.status === 501)
      workloads.set("hop", {
        ability: hop,
        input,
        expectStatus: 501,
        note: `not wired: one gRPC hop to ${abilityById.get(hop)!.service}, which answers 501 (declared, not wired)`,
      });
    else skipped.set("hop", `${hop} answered ${probe.status} (${String(probe.body.code ?? "")}) instead of 501`);
  } else skipped.set("hop", "every ability is wired; key.inspect is the hop to compare");

  const candidates: Array<{
    ability: string;
    name?: string;
    input: () => Promise<unknown>;
    envelopes?: (input: unknown) => Promise<unknown[]>;
    connections?: number;
    note: string;
  }> = [
    { ability: "key.inspect", input: async () => ({}), note: "keys service, Postgres read" },
    {
      ability: "contact.get",
      input: async () => {
        const created = await call(gatewayUrl, key.key, "contact.create", {
          name: "Bench Lookup",
          company: "Northwind Studio",
        });
        const result = created.body.result as Record<string, unknown> | undefined;
        const id = result?.id ?? (result?.contact as Record<string, unknown> | undefined)?.id;
        if (created.status !== 200 || typeof id !== "string")
          throw new Error(
            `contact.create for its fixture answered ${created.status} (${String(created.body.code ?? "")})`,
          );
        return { id };
      },
      note: "workspace service, Postgres read by id",
    },
    {
      ability: "contact.create",
      input: async () => ({ name: "Ada Obi", company: "Northwind Studio", metadata: { source: "bench" } }),
      note: "workspace service, Postgres insert per call",
    },
    {
      ability: "memory.search",
      input: async () => {
        for (const text of [
          "Biscuit eats the renal diet kibble, twice a day.",
          "Biscuit's vet is Dr. Okafor.",
          "Refill the prescription on the 1st.",
        ]) {
          await call(gatewayUrl, key.key, "memory.save", { text, collection: "bench" }).catch(() => undefined);
        }
        return { query: "which food does Biscuit need", collection: "bench", limit: 3 };
      },
      note: "memory service, vector search",
    },
    {
      ability: "payment.initiate",
      input: async () => ({ amount: 12.5, currency: "USD", description: "Bench order" }),
      envelopes: async (input) => keyedEnvelopes(input),
      note: "payments service, sandbox provider (the default): a payment and its first history row per call, each under its own idempotencyKey",
    },
    {
      ability: "payout.send",
      input: async () => {
        // Funds the bench tenant's sandbox balance (a payment that succeeds at its first status
        // refresh) far beyond what the run can pay out, and verifies the recipient.
        const paid = await call(gatewayUrl, key.key, "payment.initiate", { amount: 900_000_000, currency: "USD" });
        const paymentId = (paid.body.result as Record<string, unknown> | undefined)?.id;
        const settled = await call(gatewayUrl, key.key, "payment.status", { id: paymentId });
        if (
          settled.status !== 200 ||
          (settled.body.result as Record<string, unknown> | undefined)?.status !== "succeeded"
        )
          throw new Error(`funding the payouts answered ${paid.status}/${settled.status}`);
        const verified = await call(gatewayUrl, key.key, "payout.verify_account", {
          country: "NG",
          currency: "USD",
          accountNumber: "0123454321",
          bankCode: "058",
          accountName: "Ada Obi",
        });
        const recipientId = (verified.body.result as Record<string, unknown> | undefined)?.id;
        if (verified.status !== 200 || typeof recipientId !== "string")
          throw new Error(`payout.verify_account answered ${verified.status} (${String(verified.body.code ?? "")})`);
        return { recipientId, amount: 1.25, currency: "USD", idempotencyKey: `bench-probe-${randomUUID()}` };
      },
      envelopes: async (input) => keyedEnvelopes(input),
      note: "payments service, sandbox provider: the balance locked and checked, the amount reserved, the payout recorded, sent and paid, its ledger journals and a NATS event per call, each under its own idempotencyKey",
    },
    {
      ability: "web.browse",
      input: async () => ({ url: await benchPage(), format: "markdown", renderer: "http" }),
      note: `web service, HTTP path: an article of ${ARTICLE_BYTES} bytes (about 6 KB of HTML, most of it paragraph text) on loopback fetched through the kit's SSRF guard (loopback allowed for the bench, which logs a warning per request), Readability + turndown to Markdown`,
    },
    {
      ability: "web.browse",
      name: "web.browse:browser",
      input: async () => ({ url: await benchPage(), format: "markdown", renderer: "browser" }),
      // The web service renders WEB_BROWSER_CONCURRENCY pages at once (default 2); more connections
      // would only queue past the load generator's timeout.
      connections: 4,
      note: "web service, browser path: the same article in headless Chromium (a new context per page, its traffic through the SSRF proxy), then Readability + turndown; 4 connections",
    },
    {
      ability: "contact.get",
      name: "contact.get:run",
      input: async () => {
        const created = await call(gatewayUrl, key.key, "contact.create", { name: "Bench Permit" });
        const id = (created.body.result as Record<string, unknown> | undefined)?.id;
        if (created.status !== 200 || typeof id !== "string")
          throw new Error(`contact.create for its fixture answered ${created.status}`);
        return { id };
      },
      envelopes: (input) => runBoundEnvelopes(gatewayUrl, key.key, "contact.get", input, opts.permits),
      note: `contact.get under a trust run (context.runId): the gateway's permit step consumes a single-use permit in the trust service before dispatch and records a signed receipt after (${opts.permits} permits in runs of ${PERMITS_PER_RUN}, one envelope per run, sent in turn); compare with contact.get`,
    },
  ];

  for (const c of candidates) {
    const name = c.name ?? c.ability;
    if (wired.get(c.ability) !== true) {
      skipped.set(
        name,
        wired.has(c.ability) ? "not wired yet (its service answers 501)" : "its service did not answer Describe",
      );
      continue;
    }
    try {
      const input = await c.input();
      const probe = await call(gatewayUrl, key.key, c.ability, input);
      if (probe.status !== 200) {
        skipped.set(
          name,
          `probe answered ${probe.status} (${String(probe.body.code ?? "")}: ${String(probe.body.error ?? "").slice(0, 120)})`,
        );
        continue;
      }
      const envelopes = c.envelopes ? await c.envelopes(input) : undefined;
      workloads.set(name, {
        ability: c.ability,
        name,
        input,
        expectStatus: 200,
        note: c.note,
        ...(envelopes ? { envelopes: () => envelopes } : {}),
        ...(c.connections ? { connections: c.connections } : {}),
      });
    } catch (err) {
      skipped.set(name, (err as Error).message);
    }
  }
  for (const [k, why] of skipped) log(`skip gantry:${k}: ${why}`);
  return { workloads, skipped };
}

/**
 * Cold start of `npm start` (dependencies installed): time from spawning it until the gateway's
 * `/health` answers 200. `dataDir` missing → first start: the cluster taken from the machine's
 * (infra/runner/seed-cluster.ts), whose entry is built first, untimed, when a migration changed since
 * (what every later new data directory gets); kept → a restart.
 */
export async function timeNpmStart(dataDir: string): Promise<number> {
  const seedCache = defaultSeedCache();
  if (seedCache && !fs.existsSync(dataDir)) {
    const schemas = AREA_SERVICES.filter((s) => s.database).map((s) => s.name);
    await warmSeed(seedCache, schemas, () => {});
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = await startChild({
    name: "npm start",
    command: "npm",
    args: ["start", "--silent"],
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), GANTRY_DATA_DIR: dataDir, NO_COLOR: "1" },
    health: () => httpHealthy(url, 500),
    timeoutMs: 120_000,
    detached: true,
  });
  const seconds = (performance.now() - t0) / 1000;
  await stopNpmStart(child, dataDir);
  return seconds;
}

/**
 * Stops an `npm start` with one SIGTERM to the runner, and returns once it and its Postgres are
 * gone, so the next start finds the cluster free. npm forwards the signal it gets, so the group is
 * signalled only when the runner cannot be found, and only once (a repeated SIGTERM only repeats the
 * runner's "still stopping" line).
 */
async function stopNpmStart(child: Child, dataDir: string): Promise<void> {
  let runner: number | undefined;
  for (let i = 0; i < 20 && !runner; i++) {
    runner = findDescendant(child.pid, "infra/runner/start.ts");
    if (!runner) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone */
    }
  };
  signal(runner ?? -child.pid, "SIGTERM");
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + 60_000;
  while ((runner ? alive(runner) : child.proc.exitCode === null) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  if (Date.now() >= deadline) signal(-child.pid, "SIGKILL");
  await child.exited;
  // The runner stops Postgres before it exits; this only guards a runner that could not.
  const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
  for (let i = 0; i < 150 && fs.existsSync(pidFile); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

function findDescendant(root: number, needle: string): number | undefined {
  const parents = new Map<number, number>();
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  const isUnder = (pid: number) => {
    for (let p = pid, i = 0; p > 1 && i < 64; p = parents.get(p) ?? 0, i++) if (p === root) return true;
    return false;
  };
  // The node process itself, not the `sh -c "node …"` wrapper npm puts between (whose command line
  // contains the same text): signalling the wrapper would orphan the runner.
  for (const pid of parents.keys()) {
    if (!isUnder(pid)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (path.basename(argv[0]) === "node" && argv.slice(1).some((a) => a.includes(needle))) return pid;
    } catch {
      /* gone */
    }
  }
  return undefined;
}

/** `git rev-parse --short HEAD` plus `+dirty` when the work tree has changes. */
export async function gitDescribe(): Promise<string> {
  const run = (args: string[]) =>
    new Promise<string>((resolve) => {
      const p = spawn("git", args, { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "ignore"] });
      let out = "";
      p.stdout.on("data", (d: Buffer) => (out += d.toString()));
      p.on("exit", () => resolve(out.trim()));
      p.on("error", () => resolve(""));
    });
  const head = await run(["rev-parse", "--short", "HEAD"]);
  const dirty = (await run(["status", "--porcelain", "--untracked-files=no"])) !== "";
  return head ? `${head}${dirty ? "+dirty" : ""}` : "unknown";
}
