/**
 * What a sandbox payment.initiate and payout.send cost through the whole stack (issue 30), beside a
 * plain contact.get: CPU per call by process (gateway, keys, workspace, payments, Postgres with its
 * ended backends, NATS), Postgres transactions per call and calls/s, over HTTP as the bench calls
 * them (each payment and payout under its own idempotencyKey). scripts/cost-per-call.ts measures
 * the service alone; this one shows the gateway's share, which only the whole stack has. `N` calls
 * per ability at `C` at once, after 200 to warm up, the abilities alternating `ROUNDS` times; with
 * `PROF_DIR` every process writes a `--cpu-prof` profile there when it stops (each window printed
 * in the profile's clock, µs).
 *
 * @example
 * N=1000 C=16 ROUNDS=2 node_modules/.bin/node services/payments/scripts/stack-cost-per-call.ts
 */
import { startTestStack } from "@gantry/infra/testing/stack.ts";
import { cpuTicksByRoot } from "../../../bench/lib/proc-stats.ts";

const N = Number(process.env.N ?? 1000);
const C = Number(process.env.C ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const PROCESSES = ["gateway", "keys", "workspace", "payments", "postgres", "nats"];

const t = await startTestStack({
  services: ["keys", "workspace", "payments"],
  env: {
    GANTRY_CHECK_RESULTS: "0",
    LOG_LEVEL: "warn",
    PAYMENTS_RESEND_SWEEP_SECONDS: "0",
    ...(process.env.PROF_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.PROF_DIR}` } : {}),
  },
});
// A limit the run cannot reach: a 429 would be measured as a call.
const { key } = await t.insertKey({ tenant: "cost-co", name: "cost", rateLimit: 1_000_000, rateWindowSeconds: 60 });

async function post(
  ability: string,
  input: unknown,
): Promise<{ status: number; body: { code?: string; result?: { id: string } } }> {
  const res = await fetch(`${t.url}/v1/abilities/${ability}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  return { status: res.status, body: await res.json() };
}

async function ok(ability: string, input: unknown): Promise<{ id: string }> {
  const r = await post(ability, input);
  if (r.status !== 200) throw new Error(`${ability} answered ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result!;
}

const contact = await ok("contact.create", { name: "Cost Lookup" });
const funding = await ok("payment.initiate", { amount: 900_000_000, currency: "USD" });
await ok("payment.status", { id: funding.id });
const recipient = await ok("payout.verify_account", {
  country: "NG",
  currency: "USD",
  accountNumber: "0123454321",
  bankCode: "058",
  accountName: "Ada Obi",
});

let k = 0;
const inputs: Record<string, () => unknown> = {
  "contact.get": () => ({ id: contact.id }),
  "payment.initiate": () => ({ amount: 12.5, currency: "USD", description: "Bench order", idempotencyKey: `p${++k}` }),
  "payout.send": () => ({ recipientId: recipient.id, amount: 1.25, currency: "USD", idempotencyKey: `s${++k}` }),
};

function cpuMs(): Record<string, number> {
  const roots = PROCESSES.map((p) => t.stack.pid(p));
  const ticks = cpuTicksByRoot(roots.filter((pid) => pid !== undefined));
  return Object.fromEntries(PROCESSES.map((p, i) => [p, (ticks.get(roots[i]!) ?? 0) * 10]));
}

async function xacts(): Promise<number> {
  await new Promise((r) => setTimeout(r, 700)); // the statistics are flushed up to ~0.5 s late
  const { rows } = await t.db.query(
    "SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = current_database()",
  );
  return Number(rows[0].n);
}

async function measure(ability: string, n: number): Promise<void> {
  const [x0, c0, t0, window0] = [await xacts(), cpuMs(), performance.now(), process.hrtime.bigint() / 1000n];
  let [next, failed, firstFailure] = [0, 0, ""];
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next++ < n) {
        const r = await post(ability, inputs[ability]());
        if (r.status !== 200 && !failed++) firstFailure = ` (first: ${r.status} ${r.body.code})`;
      }
    }),
  );
  const [ms, window1, c1] = [performance.now() - t0, process.hrtime.bigint() / 1000n, cpuMs()];
  const x1 = await xacts();
  const per = PROCESSES.map((p) => `${p} ${(((c1[p] - c0[p]) * 1000) / n).toFixed(0)}`);
  const total = PROCESSES.reduce((s, p) => s + c1[p] - c0[p], 0);
  console.log(
    `${ability}: CPU µs/call ${per.join(", ")}; total ${((total * 1000) / n).toFixed(0)}; ` +
      `Postgres transactions/call ${((x1 - x0 - 1) / n).toFixed(2)}; ${((n / ms) * 1000).toFixed(0)} calls/s ` +
      `(profile window ${window0}-${window1})${failed ? `; ${failed} not 200${firstFailure}` : ""}`,
  );
}

const abilities = process.env.OPS?.split(",") ?? Object.keys(inputs);
for (const a of abilities) await measure(a, 200);
for (let r = 0; r < ROUNDS; r++) for (const a of abilities) await measure(a, N);
await t.stop();
process.exit(0);
