/**
 * Where Postgres spends a run call's time in trust's statements, per plan node: the tenant's
 * permits and receipts written by a real LogAppender (the statements and values as the service
 * sends them, on the service's role under row-level security), each execution explained by
 * auto_explain (ANALYZE, BUFFERS, WAL, VERBOSE, nested statements: the consume inside
 * `trust.take_permits`) and summed per node over `BATCHES` batches of `PERMITS` permits and
 * `RECEIPTS` signed receipts each (receipts of 50-permit runs of one input, as the bench's
 * `contact.get:run`). Also prints how often each prepared statement was planned (generic against
 * custom plans, `pg_prepared_statements` of every pooled connection) and the backends' CPU a batch
 * with auto_explain off (`/proc`, `EXPLAIN=0`), which is the figure to compare: auto_explain's
 * timing inflates small nodes, and explaining the nested statement costs the outer one ~1.3 ms
 * (`NESTED=0` leaves it out). `PERMITS=0` or `RECEIPTS=0` sends one kind alone (the consume, or
 * the append, as its own statement). The postmaster's pid is printed first, for
 * `perf record -p` of its children while the batches run. `SETUP_SQL` is run as the owner after the
 * migrations, to measure a schema change before writing its migration (e.g. a constraint dropped:
 * the most that making it cheaper can save).
 *
 * @example
 * BATCHES=300 PERMITS=4 RECEIPTS=4 node_modules/.bin/node services/trust/scripts/append-explain.ts
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { enforceTenantIsolation, migrate, repoRoot, SERVICE_ROLE, TenantPool, withTenant } from "@gantry/kit";
import { startStack } from "@gantry/infra/runner/stack.ts";
import { processStat, processTrees } from "@gantry/infra/testing/process-tree.ts";
import { LogAppender } from "../src/log-append.ts";
import { receiptRow } from "../src/receipts.ts";
import { signingKey } from "../src/signing.ts";
import type { Context } from "../src/context.ts";

const BATCHES = Number(process.env.BATCHES ?? 300);
const PERMITS = Number(process.env.PERMITS ?? 4);
const RECEIPTS = Number(process.env.RECEIPTS ?? 4);
const EXPLAIN = process.env.EXPLAIN !== "0";
const tenant = "acme";

const stack = await startStack({ port: 0, quiet: true, services: [], gateways: 0 });
console.log(`postmaster ${stack.pid("postgres")}`); // for perf record -p of its children
const admin = new pg.Pool({ connectionString: stack.env.DATABASE_URL, max: 2 });
admin.on("error", () => {});
await migrate(admin, "trust", join(repoRoot(), "services/trust/prisma/migrations"));
await enforceTenantIsolation(admin, "trust", SERVICE_ROLE);
if (process.env.SETUP_SQL) await admin.query(process.env.SETUP_SQL);
const db = (await admin.query("SELECT current_database() AS d")).rows[0].d as string;
if (EXPLAIN)
  for (const s of [
    "session_preload_libraries = 'auto_explain'",
    '"auto_explain.log_min_duration" = 0',
    '"auto_explain.log_analyze" = on',
    '"auto_explain.log_buffers" = on',
    '"auto_explain.log_wal" = on',
    '"auto_explain.log_verbose" = on',
    `"auto_explain.log_nested_statements" = ${process.env.NESTED === "0" ? "off" : "on"}`,
    '"auto_explain.log_format" = json',
    '"auto_explain.log_level" = notice',
  ])
    await admin.query(`ALTER DATABASE "${db}" SET ${s}`);

const pool = new TenantPool({ connectionString: stack.env.DATABASE_URL, max: 4, role: SERVICE_ROLE });
pool.on("error", () => {});
/** Each explained plan: the statement's name (its first line) and the plan's JSON. */
const plans: { text: string; plan: PlanNode }[] = [];
let recording = false;
pool.on("connect", (c) =>
  c.on("notice", (n) => {
    const m = /plan:\n([\s\S]*)$/.exec(n.message ?? "");
    if (!m || !recording) return;
    const doc = JSON.parse(m[1]!) as { "Query Text": string; Plan: PlanNode };
    plans.push({ text: doc["Query Text"], plan: doc.Plan });
  }),
);

const key = signingKey(randomBytes(32));
const ctx = { keys: { current: key } } as unknown as Context;
const inputHash = "ab".repeat(32);

/** Runs of 50 permits of one input, enough for `n` permits. */
async function runsFor(n: number, from: number): Promise<string[]> {
  const ids: string[] = [];
  for (let r = 0; r < Math.ceil(n / 50); r++) {
    const id = `run_${from}_${r}`;
    ids.push(id);
    await admin.query(
      `INSERT INTO trust.runs (id, tenant, task, key_id, request_id, created_at, expires_at)
       VALUES ($1, $2, 'explain', 'key_x', 'req_pre', now(), now() + interval '1 hour')`,
      [id, tenant],
    );
    await admin.query(
      `INSERT INTO trust.permits (id, tenant, run_id, position, ability, input_hash, status)
       SELECT $1 || '_' || g, $2, $1, g, 'contact.get', $3, 'issued' FROM generate_series(0, 49) g`,
      [id, tenant, inputHash],
    );
  }
  return ids;
}

let seq = 0;
let receipts = 0;
/** One batch: PERMITS permits and RECEIPTS receipts of the tenant, sent in one tick. */
async function batch(appender: LogAppender, runIds: string[]): Promise<void> {
  const now = new Date();
  const calls = Array.from({ length: PERMITS }, () => seq++);
  const take = !PERMITS
    ? Promise.resolve({ taken: [] })
    : appender.take(tenant, [
        calls.map((i) => runIds[Math.floor(i / 50)]!),
        calls.map(() => "key_x"),
        calls.map(() => "contact.get"),
        calls.map(() => inputHash),
        calls.map((i) => `req_${i}`),
        now,
      ]);
  const appends = Array.from({ length: RECEIPTS }, (_, i) => {
    const n = Math.max(0, seq - PERMITS + (i % Math.max(PERMITS, 1)));
    return appender.append(
      receiptRow(ctx, {
        tenant,
        requestId: `req_r${receipts++}`,
        runId: runIds[Math.floor(n / 50)]!,
        permitId: `${runIds[Math.floor(n / 50)]}_${n % 50}`,
        ability: "contact.get",
        inputHash,
        resultHash: "cd".repeat(32),
        status: 200,
        at: now,
      }),
    );
  });
  const { taken } = await take;
  if (taken.length !== PERMITS) throw new Error(`took ${taken.length} of ${PERMITS} permits`);
  await Promise.all(appends);
}

/** CPU (ms) of the postmaster and its children, live or ended and reaped. */
function postgresCpuMs(): number {
  const ticks = processTrees([stack.pid("postgres")!]).reduce((sum, pid) => {
    const st = processStat(pid);
    return sum + (st ? st.ticks + st.reapedTicks : 0);
  }, 0);
  return ticks * 10;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "CTE Name"?: string;
  "Subplan Name"?: string;
  "Function Name"?: string;
  "Index Name"?: string;
  Operation?: string;
  "Actual Total Time": number;
  "Actual Loops": number;
  "Shared Hit Blocks"?: number;
  "Shared Dirtied Blocks"?: number;
  "WAL Records"?: number;
  "WAL Bytes"?: number;
  Plans?: PlanNode[];
}

/** Per node label: inclusive ms (time × loops), WAL bytes and records, shared hits, summed. */
const nodes = new Map<string, { ms: number; self: number; wal: number; records: number; hits: number; n: number }>();
function walk(statement: string, node: PlanNode, depth: number): void {
  const what =
    node["Subplan Name"] ??
    node["CTE Name"] ??
    node["Index Name"] ??
    node["Relation Name"] ??
    node["Function Name"] ??
    "";
  const label = `${statement} ${"  ".repeat(depth)}${node.Operation ?? node["Node Type"]} ${what}`.trimEnd();
  const ms = node["Actual Total Time"] * node["Actual Loops"];
  // Self time: the node's own less its children's; CTE scans' producers are counted where they run.
  const children = (node.Plans ?? [])
    .filter((c) => !("Subplan Name" in c) || !String(c["Subplan Name"]).startsWith("CTE"))
    .reduce((s, c) => s + c["Actual Total Time"] * c["Actual Loops"], 0);
  const own = (node.Plans ?? []).reduce((s, c) => s + (c["WAL Bytes"] ?? 0), 0);
  const e = nodes.get(label) ?? { ms: 0, self: 0, wal: 0, records: 0, hits: 0, n: 0 };
  e.ms += ms;
  e.self += Math.max(0, ms - children);
  e.wal += (node["WAL Bytes"] ?? 0) - own;
  e.records += node["WAL Records"] ?? 0;
  e.hits += node["Shared Hit Blocks"] ?? 0;
  e.n++;
  nodes.set(label, e);
  for (const c of node.Plans ?? []) walk(statement, c, depth + 1);
}

await withTenant(tenant, async () => {
  const appender = new LogAppender(pool);
  const runIds = await runsFor(Math.max(PERMITS, 1) * (BATCHES + 50), 0);
  // Warm-up: every pooled connection has prepared and run each statement more than five times.
  for (let i = 0; i < 50; i++) await batch(appender, runIds);
  recording = true;
  const cpu0 = postgresCpuMs();
  const t0 = performance.now();
  for (let i = 0; i < BATCHES; i++) await batch(appender, runIds);
  const ms = performance.now() - t0;
  const cpu = postgresCpuMs() - cpu0;
  recording = false;
  const names = new Map([
    ["WITH calls", "consume (in take_permits)"],
    ["WITH p AS (SELECT ord, id FROM trust.take_permits", "append+take"],
    ["WITH l AS (UPDATE trust.logs", "append"],
    ["SELECT ord, id FROM trust.take_permits", "consume"],
  ]);
  const stmts = new Map<string, number>();
  for (const { text, plan } of plans) {
    const real =
      [...names].find(([k]) => text.trimStart().startsWith(k))?.[1] ?? text.trim().slice(0, 40).replace(/\s+/g, " ");
    stmts.set(real, (stmts.get(real) ?? 0) + 1);
    walk(real, plan, 0);
  }
  console.log(
    `${BATCHES} batches of ${PERMITS} permits + ${RECEIPTS} receipts: Postgres CPU ${((cpu * 1000) / BATCHES).toFixed(0)} µs a batch ` +
      `(${EXPLAIN ? "with auto_explain" : "auto_explain off"}), ${((ms * 1000) / BATCHES).toFixed(0)} µs wall a batch`,
  );
  console.log("statements explained:", Object.fromEntries(stmts));
  if (EXPLAIN) {
    console.log("node (inclusive µs a batch, self µs, WAL B a batch of the node itself, WAL records, shared hits)");
    for (const [label, e] of nodes)
      console.log(
        `${label.padEnd(90)} ${((e.ms * 1000) / BATCHES).toFixed(1).padStart(8)} ${((e.self * 1000) / BATCHES).toFixed(1).padStart(8)} ` +
          `${(e.wal / BATCHES).toFixed(0).padStart(6)} ${(e.records / BATCHES).toFixed(1).padStart(6)} ${(e.hits / BATCHES).toFixed(1).padStart(6)}`,
      );
  }
  const clients = await Promise.all(Array.from({ length: 4 }, () => pool.connect()));
  for (const c of clients) {
    const { rows } = await c.query(
      "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'trust.%' ORDER BY name",
    );
    console.log("plans:", rows.map((r) => `${r.name} generic ${r.generic_plans} custom ${r.custom_plans}`).join("; "));
  }
  for (const c of clients) c.release();
});

await pool.end();
await admin.end();
await stack.stop();
process.exit(0);
