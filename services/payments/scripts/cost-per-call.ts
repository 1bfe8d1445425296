/**
 * What one sandbox payout.send / payment.initiate / payout.send replay costs, in figures that do not
 * depend on how busy the machine is (issue 30): client statements (round trips to Postgres; of them the
 * outbox relay's rounds, a claim and a commit each, however many events a round publishes) and
 * trigger-function calls and WAL bytes per call (with `WAL=1`, by table and index: pg_walinspect over
 * the window), beside this process's CPU and its Postgres's CPU per call, which do. The service runs in this process on real Postgres and NATS (the test harness); `N` calls per
 * operation at `C` at once, after `WARM` (30, also at `C` at once) to warm up; `OPS` picks operations (comma-separated names).
 * The first operation's figures include the JIT's warm-up: with 30 calls a payout read ~0.5 ms more
 * of this process's CPU than after a few hundred (`WARM=500` steadies it).
 * Add `--cpu-prof` to profile: each operation prints its window in the profile's clock (µs).
 *
 * @example
 * N=300 C=16 node_modules/.bin/node services/payments/scripts/cost-per-call.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { walAt, walByRelation } from "@gantry/infra/testing/wal.ts";
import pg from "pg";
import { assertLedgerBalanced, fund, recipient, startPayments } from "../src/test/helpers.ts";

const N = Number(process.env.N ?? 300);
const C = Number(process.env.C ?? 8);
const WARM = Number(process.env.WARM ?? 30);
const t = await startPayments({
  PAYMENTS_RESEND_SWEEP_SECONDS: "0",
  ...(process.env.PAYMENTS_ACCEPTING_STATEMENTS
    ? { PAYMENTS_ACCEPTING_STATEMENTS: process.env.PAYMENTS_ACCEPTING_STATEMENTS }
    : {}),
});
await t.db.query("ALTER SYSTEM SET track_functions = 'all'");
await t.db.query("SELECT pg_reload_conf()");
const tenant = "cost-co";
await fund(t, tenant, 10_000_000, "USD");
const rcp = await recipient(t, tenant, "USD");
let k = 0;
const ops: Record<string, () => Promise<unknown>> = {
  "payout.send": () =>
    t.call("payout.send", { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: `k${++k}` }, { tenant }),
  "payment.initiate": () =>
    t.call("payment.initiate", { amount: 10, currency: "USD", idempotencyKey: `p${++k}` }, { tenant }),
  "payout.send replay": () =>
    t.call("payout.send", { recipientId: rcp, amount: 1, currency: "USD", idempotencyKey: "same" }, { tenant }),
};

// Every statement any pg client of this process sends (the service's pool, the relay, runPrepared),
// and the outbox relay's claims among them (one a round: kit/src/outbox.ts).
let statements = 0;
let claims = 0;
const query = pg.Client.prototype.query;
(pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  if (typeof args[0] === "string" && args[0].startsWith("BEGIN;") && args[0].includes("outbox")) claims++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
};

/** CPU milliseconds of the Postgres processes this process started (the postmaster and its backends). */
function postgresCpuMs(): number {
  const procs = new Map<number, { ppid: number; comm: string; ticks: number }>();
  for (const pid of readdirSync("/proc").filter((d) => /^[0-9]+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      procs.set(Number(pid), { ppid: Number(fields[1]), comm, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // ended meanwhile
    }
  }
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of procs) {
      if (!ours.has(pid) && ours.has(p.ppid)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of ours) {
    const p = procs.get(pid);
    if (p?.comm.startsWith("postgres")) ticks += p.ticks;
  }
  return ticks * 10;
}

/** Trigger-function calls so far (Postgres reports them up to a second late: read after a pause). */
async function functionCalls(): Promise<Record<string, number>> {
  await new Promise((r) => setTimeout(r, 1_200));
  const { rows } = await t.db.query(
    `SELECT funcname, calls::int FROM pg_stat_user_functions WHERE schemaname = 'payments'`,
  );
  return Object.fromEntries(rows.map((r) => [r.funcname, r.calls]));
}

const wanted = process.env.OPS?.split(",");
for (const [name, op] of Object.entries(ops).filter(([n]) => !wanted || wanted.includes(n))) {
  // At C at once, as measured: one at a time, the pool would open its other connections (and pay
  // their logins) inside the window.
  let warmed = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (warmed++ < WARM) await op();
    }),
  );
  const calls0 = await functionCalls();
  const wal0 = await walAt(t.db);
  const [s0, r0, cpu0, pg0, t0] = [statements, claims, process.cpuUsage(), postgresCpuMs(), performance.now()];
  const window0 = process.hrtime.bigint() / 1000n;
  let started = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (started++ < N) await op();
    }),
  );
  const window1 = process.hrtime.bigint() / 1000n;
  const [sent, rounds, cpu, pgMs, ms] = [
    statements - s0,
    claims - r0,
    process.cpuUsage(cpu0),
    postgresCpuMs() - pg0,
    performance.now() - t0,
  ];
  const calls1 = await functionCalls();
  const wal1 = await walAt(t.db);
  const triggers = Object.entries(calls1)
    .map(([fn, n]) => `${fn} ${((n - (calls0[fn] ?? 0)) / N).toFixed(2)}`)
    .join(", ");
  console.log(
    `${name}: ${(sent / N).toFixed(2)} statements/call (outbox relay rounds/call ${(rounds / N).toFixed(3)}); functions/call: ${triggers}; ` +
      `WAL ${((wal1.bytes - wal0.bytes) / N).toFixed(0)} B/call; ` +
      `CPU/call ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms this process, ${(pgMs / N).toFixed(2)} ms Postgres; ` +
      `${((N / ms) * 1000).toFixed(0)} calls/s (profile window ${window0}-${window1})`,
  );
  // A window without WAL (a replay) has no record for pg_walinspect to start from.
  if (process.env.WAL && wal1.bytes > wal0.bytes)
    console.log(`  WAL by relation, bytes/call: ${await walByRelation(t.db, wal0.lsn, wal1.lsn, N)}`);
}
await assertLedgerBalanced(t);
await t.stop();
process.exit(0);
