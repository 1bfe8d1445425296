/**
 * What the kit's Postgres path costs this process a statement (issue 30): `runPrepared` on a
 * `TenantPool` in a tenant's scope, as a payout's accepting statement is run, with values shaped
 * like that statement's (45: text, numbers, instants, JSON text, nulls and four text arrays of four
 * lines). The statement itself is trivial, so what is measured is the client: the pool's checkout
 * and release with the call's scope, the serialisation and socket write of Parse/Bind/Execute/Sync,
 * the answer's read and row. Each statement runs as a call's, with its own abort signal. `N` statements at `C` at once per round, `ROUNDS` rounds; this
 * process's CPU (process.cpuUsage; its system part is the kernel's socket work) and Postgres's (its processes' CPU from /proc) per statement.
 * It loads kit/src of the checkout it is run from, so two worktrees compare two clients.
 *
 * @example
 * N=20000 C=16 ROUNDS=5 node_modules/.bin/node kit/scripts/pg-path-cost.ts
 */
import { startTestStack } from "@gantry/infra/testing/stack.ts";
import { processStat, processTrees } from "@gantry/infra/testing/process-tree.ts";
import { readFileSync } from "node:fs";
import { withCallSignal } from "../src/call-signal.ts";
import { runPrepared } from "../src/data/prepared.ts";
import { enforceTenantIsolation, SERVICE_ROLE, TenantPool, withTenant } from "../src/tenancy.ts";

const N = Number(process.env.N ?? 20_000);
const C = Number(process.env.C ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const t = await startTestStack({ services: [], gateways: 0 });
// The service role row-level security applies to, as services log in (made by the kit's isolation step).
await t.db.query("CREATE SCHEMA path_cost");
await enforceTenantIsolation(t.db, "path_cost", SERVICE_ROLE);
const pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 10, role: SERVICE_ROLE });
pool.on("error", () => {});

const scalars = 33;
const casts = [
  ...Array.from({ length: scalars }, (_, i) => (i % 5 === 3 ? "timestamptz" : i % 5 === 4 ? "bigint" : "text")),
  "text[]",
  "text[]",
  "bigint[]",
  "text[]",
  ...Array.from({ length: 8 }, () => "text"),
];
const TEXT = `SELECT $1::text AS id FROM (SELECT ${casts.map((c, i) => `$${i + 1}::${c}`).join(", ")}) v`;

function values(i: number): unknown[] {
  const at = new Date(1_790_000_000_000 + i);
  const v: unknown[] = [];
  for (let k = 0; k < scalars; k++) {
    if (k % 5 === 3) v.push(k === 23 ? null : at);
    else if (k % 5 === 4) v.push(1_000 + k);
    else if (k === 18) v.push(JSON.stringify({ order: `o_${i}`, note: 'a "quoted" memo' }));
    else v.push(k % 7 === 6 ? null : `po_01J9ZD6E7F8G9H0J1K2M3N${i}_${k}`);
  }
  v.push(
    ["reserve", "reserve", "move", "move"],
    ["payouts:available:USD", "payouts:reserved:USD", "payouts:reserved:USD", "payouts:clearing:USD"],
    [100, -100, 100, -100],
    [`payout po_${i} reserved`, null, `payout po_${i} moved`, null],
  );
  for (let k = 0; k < 8; k++) v.push(`evt_${i}_${k}_payments.payout.sent`);
  return v;
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8");
  } catch {
    return ""; // ended meanwhile
  }
}

/** CPU milliseconds of the Postgres processes this process started (10 ms ticks). */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of processTrees([process.pid])) {
    if (!commOf(pid).startsWith("postgres")) continue;
    ticks += processStat(pid)?.ticks ?? 0;
  }
  return ticks * 10;
}

async function round(n: number): Promise<{ us: number; systemUs: number; pgUs: number; perSecond: number }> {
  let started = 0;
  const [cpu0, pg0, t0] = [process.cpuUsage(), postgresCpuMs(), performance.now()];
  await withTenant("cost-co", () =>
    Promise.all(
      Array.from({ length: C }, async () => {
        while (started < n) {
          const i = started++;
          // Each statement as a call's: the kit runs every call with its signal, which the pool watches.
          const call = new AbortController();
          const [row] = await withCallSignal(call.signal, () =>
            runPrepared<{ id: string }>(pool, "path_cost.statement", TEXT, values(i)),
          );
          if (!row?.id) throw new Error("no row");
        }
      }),
    ),
  );
  const cpu = process.cpuUsage(cpu0);
  return {
    us: (cpu.user + cpu.system) / n,
    systemUs: cpu.system / n,
    pgUs: ((postgresCpuMs() - pg0) * 1000) / n,
    perSecond: (n / (performance.now() - t0)) * 1000,
  };
}

await round(Math.min(N, 3000)); // warm-up: connections, JIT
for (let r = 1; r <= ROUNDS; r++) {
  const { us, systemUs, pgUs, perSecond } = await round(N);
  console.log(
    `round ${r}: this process ${us.toFixed(1)} µs a statement (the kernel ${systemUs.toFixed(1)}), Postgres ${pgUs.toFixed(1)} µs, ${perSecond.toFixed(0)} statements/s`,
  );
}
await pool.end();
await t.stop();
process.exit(0);
