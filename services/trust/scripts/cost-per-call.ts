/**
 * What one `contact.get` under a trust run costs beside a plain one (issue 30), in figures that
 * depend less on how busy the machine is than req/s: CPU per call of each process (gateway, trust,
 * workspace, keys, Postgres with its backends, from /proc) and Postgres transactions per call
 * (each statement outside a transaction is one; pg_stat_database). The stack is the test stack
 * (gateway, keys, trust and workspace as separate processes, real Postgres and NATS); `N` calls per
 * mode at `C` at once, after 200 to warm up, plain and run alternating `ROUNDS` times, with each
 * mode's calls/s and latency (p50, p99: how long a call waits, e.g. a permit behind its tenant's batch). Runs of 50
 * identical permits, as the bench's `contact.get:run`. With `PROF_DIR` every process of the stack
 * writes a `--cpu-prof` profile there when it stops; `MODES=run` measures only calls under a run.
 * With `WAL=1` it also prints WAL bytes per call by table and index (pg_walinspect over the window;
 * the WAL total per call is printed always).
 *
 * @example
 * N=3000 C=32 ROUNDS=2 node_modules/.bin/node services/trust/scripts/cost-per-call.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { walAt, walByRelation } from "@gantry/infra/testing/wal.ts";
import { startTestStack } from "@gantry/infra/testing/stack.ts";

const N = Number(process.env.N ?? 3000);
const C = Number(process.env.C ?? 32);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const PER_RUN = 50;
const t = await startTestStack({
  services: ["keys", "trust", "workspace"],
  healthTimeoutMs: 120_000,
  env: {
    RATE_LIMIT_DEFAULT: "1000000000",
    GANTRY_CHECK_RESULTS: "0",
    LOG_LEVEL: "warn",
    ...(process.env.PROF_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROF_DIR}` } : {}),
  },
});
const { key } = await t.insertKey({ tenant: "acme", name: "cost" });

/** The parts of an ability's answer this script reads. */
interface Answer {
  result: { id: string };
}

async function post(ability: string, body: unknown): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${t.url}/v1/abilities/${ability}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

const created = await post("contact.create", { input: { name: "Cost Permit" } });
const input = { id: created.body.result.id };

/** Runs of 50 permits for `input`, enough for `calls` calls. */
async function runs(calls: number): Promise<string[]> {
  const ids: string[] = [];
  const actions = Array.from({ length: PER_RUN }, () => ({ ability: "contact.get", input }));
  for (let i = 0; i < Math.ceil(calls / PER_RUN); i++) {
    const r = await post("trust.preflight", { input: { task: "cost", actions } });
    if (r.status !== 200) throw new Error(`preflight ${r.status} ${JSON.stringify(r.body)}`);
    ids.push(r.body.result.id);
  }
  return ids;
}

/** CPU ms (user + system) of each process and, for Postgres, of all its backends, live or ended. */
function cpuMs(): Record<string, number> {
  const procs = new Map<number, { ppid: number; ticks: number }>();
  for (const pid of readdirSync("/proc").filter((d) => /^[0-9]+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Own time plus that of children already reaped: Postgres backends of closed connections.
      procs.set(Number(pid), {
        ppid: Number(f[1]),
        ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]),
      });
    } catch {
      // ended meanwhile
    }
  }
  const out: Record<string, number> = {};
  for (const name of ["gateway", "trust", "workspace", "keys", "postgres"]) {
    const root = t.stack.pid(name);
    if (root === undefined) continue;
    const tree = new Set([root]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of procs)
        if (!tree.has(pid) && tree.has(p.ppid)) {
          tree.add(pid);
          grew = true;
        }
    }
    out[name] = [...tree].reduce((sum, pid) => sum + (procs.get(pid)?.ticks ?? 0), 0) * 10;
  }
  return out;
}

async function xacts(): Promise<number> {
  await new Promise((r) => setTimeout(r, 700)); // the statistics are flushed up to ~0.5 s late
  const { rows } = await t.db.query(
    "SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = current_database()",
  );
  return Number(rows[0].n);
}

/** The q-quantile of `xs` in ms, one decimal. */
function quantile(xs: number[], q: number): string {
  const sorted = [...xs].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
}

async function measure(mode: "plain" | "run", n: number): Promise<void> {
  const runIds = mode === "run" ? await runs(n) : [];
  const x0 = await xacts();
  const wal0 = await walAt(t.db);
  const c0 = cpuMs();
  const t0 = performance.now();
  const window0 = process.hrtime.bigint() / 1000n;
  let next = 0;
  let failed = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: C }, async () => {
      for (let i = next++; i < n; i = next++) {
        const body = mode === "run" ? { input, context: { runId: runIds[Math.floor(i / PER_RUN)] } } : { input };
        const s0 = performance.now();
        const r = await post("contact.get", body);
        latencies.push(performance.now() - s0);
        if (r.status !== 200) failed++;
      }
    }),
  );
  const ms = performance.now() - t0;
  const window1 = process.hrtime.bigint() / 1000n;
  const c1 = cpuMs();
  const x1 = await xacts();
  const wal1 = await walAt(t.db);
  const per = Object.entries(c1).map(([p, v]) => `${p} ${(((v - (c0[p] ?? 0)) * 1000) / n).toFixed(0)}`);
  const total = Object.entries(c1).reduce((s, [p, v]) => s + v - (c0[p] ?? 0), 0);
  console.log(
    `${mode}: CPU µs/call ${per.join(", ")}; total ${((total * 1000) / n).toFixed(0)}; ` +
      `Postgres transactions/call ${((x1 - x0 - 1) / n).toFixed(2)}; WAL ${((wal1.bytes - wal0.bytes) / n).toFixed(0)} B/call; ` +
      `${((n / ms) * 1000).toFixed(0)} calls/s, latency p50 ${quantile(latencies, 0.5)} p99 ${quantile(latencies, 0.99)} ms ` +
      `(profile window ${window0}-${window1})` +
      (failed ? `; ${failed} not 200` : ""),
  );
  if (process.env.WAL && wal1.bytes > wal0.bytes)
    console.log(`  WAL by relation, bytes/call: ${await walByRelation(t.db, wal0.lsn, wal1.lsn, n)}`);
}

const modes = (process.env.MODES ?? "plain,run").split(",") as ("plain" | "run")[];
for (const m of modes) await measure(m, 200);
for (let r = 0; r < ROUNDS; r++) for (const m of modes) await measure(m, N);
await t.stop();
process.exit(0);
