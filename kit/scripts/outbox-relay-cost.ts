/**
 * What the outbox relay costs an event, on the test stack's Postgres and NATS: this process's CPU,
 * nats-server's and Postgres's (their processes' CPU from /proc; 10 ms ticks, so use N in the
 * thousands), and client statements, each per event. Two phases, `ROUNDS` times each:
 * - `writers`: `C` writers at once, each writes one event in its own transaction and flushes, as
 *   handlers do (a sandbox payout.send: one event a call); the insert is in the figures, the same on
 *   both sides of a change;
 * - `drain`: `N` events written first, then flushed: the relay alone, in full rounds.
 * It loads kit/src of the checkout it is run from, so two worktrees compare two relays.
 *
 * @example
 * N=3000 C=16 ROUNDS=3 node_modules/.bin/node kit/scripts/outbox-relay-cost.ts
 */
import { startTestStack } from "@gantry/infra/testing/stack.ts";
import { childrenTable, processStat, processTrees } from "@gantry/infra/testing/process-tree.ts";
import { readFileSync } from "node:fs";
import pg from "pg";
import { createLogger } from "../src/logger.ts";
import { connectNats, ensureStream } from "../src/nats.ts";
import { enqueueEvents, OUTBOX_TABLE_SQL, startOutboxRelay } from "../src/outbox.ts";
import { enforceTenantIsolation, SERVICE_ROLE, TenantPool, withTenant } from "../src/tenancy.ts";

const N = Number(process.env.N ?? 3000);
const C = Number(process.env.C ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SCHEMA = "relay_cost";
const log = createLogger("outbox-relay-cost", "silent");
const payload = { payout: "po_01J9ZD6E7F8G9H0J1K2M3N4P5Q", amount: "1.00", currency: "USD", status: "sent" };

const t = await startTestStack({ services: [], gateways: 0 });
await t.db.query(`CREATE SCHEMA ${SCHEMA}; SET search_path TO ${SCHEMA}; ${OUTBOX_TABLE_SQL}`);
await t.db.query(`GRANT USAGE ON SCHEMA ${SCHEMA} TO ${SERVICE_ROLE}`).catch(() => {});
await enforceTenantIsolation(t.db, SCHEMA, SERVICE_ROLE);
const pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 10, role: SERVICE_ROLE });
pool.on("error", () => {});
const nats = await connectNats(t.stack.env.NATS_URL, "outbox-relay-cost", log);
await ensureStream(nats.jsm, { name: "RELAY_COST", subjects: ["relaycost.>"], max_msgs: 200_000 });
const relay = startOutboxRelay({ pool, schema: SCHEMA, nats, log, intervalMs: 60_000 });

let statements = 0;
const query = pg.Client.prototype.query;
(pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  statements++;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
};

/** CPU milliseconds so far of this process's descendants whose command starts with `name`. */
function childCpuMs(name: string): number {
  const children = childrenTable();
  let ticks = 0;
  for (const pid of processTrees([process.pid], children)) {
    if (pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").startsWith(name)) ticks += processStat(pid)?.ticks ?? 0;
    } catch {
      // ended meanwhile
    }
  }
  return ticks * 10;
}

let n = 0;
const write = () =>
  withTenant("acme", () =>
    enqueueEvents(pool, SCHEMA, [
      { tenant: "acme", subject: "relaycost.payout.sent", msgId: `${process.pid}-${++n}`, payload },
    ]),
  );

async function measure(phase: string, work: () => Promise<void>): Promise<void> {
  const [s0, cpu0, pg0, nats0] = [statements, process.cpuUsage(), childCpuMs("postgres"), childCpuMs("nats-server")];
  await work();
  const cpu = process.cpuUsage(cpu0);
  const [pgMs, natsMs] = [childCpuMs("postgres") - pg0, childCpuMs("nats-server") - nats0];
  console.log(
    `${phase}: CPU/event ${((cpu.user + cpu.system) / N).toFixed(1)} us this process, ` +
      `${((natsMs * 1000) / N).toFixed(1)} us nats-server, ${((pgMs * 1000) / N).toFixed(1)} us Postgres; ` +
      `${((statements - s0) / N).toFixed(3)} statements/event`,
  );
}

const writers = async () => {
  let started = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (started++ < N) {
        await write();
        await relay.flush();
      }
    }),
  );
};
const drain = async () => {
  while ((await relay.flush()) > 0);
};

// Warm-up: the JIT, the pool's connections, the relay's subscription.
for (let i = 0; i < 500; i++) await write();
await drain();
for (let r = 0; r < ROUNDS; r++) {
  await measure(`writers C=${C}`, writers);
  for (let i = 0; i < N; i += 100) await Promise.all(Array.from({ length: Math.min(100, N - i) }, write));
  await measure("drain", drain);
}
const { rows } = await t.db.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.outbox`);
if (rows[0].n !== 0) throw new Error(`${rows[0].n} events left in the outbox`);
await relay.stop();
await nats.nc.close();
await pool.end();
await t.stop();
process.exit(0);
