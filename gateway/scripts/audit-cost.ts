/**
 * Client CPU per audited call of the gateway's audit publisher (audit.ts) against a real NATS
 * server, in this process: `RATE` calls a second are recorded for `SEC` seconds (so the 20 ms
 * batches hold about RATE / 50 records, as under that load), and the process's CPU is divided by
 * the records JetStream stored. The `src` directories given are loaded and alternated `ROUNDS`
 * times, so the code before a change runs beside it (a worktree of that commit, `node_modules`
 * linked). The baseline is an idle process waiting the same time, subtracted.
 *
 * @example
 * nats-server -p 14222 -js -sd /tmp/nats-audit &
 * NATS_URL=127.0.0.1:14222 RATE=400 node_modules/.bin/node gateway/scripts/audit-cost.ts /tmp/before/gateway/src gateway/src
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { connectNats, createLogger, ensureStream, STREAMS } from "@gantry/kit";

const url = process.env.NATS_URL ?? "127.0.0.1:14222";
const RATE = Number(process.env.RATE ?? 400);
const SEC = Number(process.env.SEC ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const dirs = process.argv.slice(2);
if (dirs.length === 0) dirs.push("gateway/src");

const log = createLogger("audit-cost", "warn");
const nats = await connectNats(url, "audit-cost", log);
await ensureStream(nats.jsm, { ...STREAMS.AUDIT, subjects: [...STREAMS.AUDIT.subjects] });
const publishers = await Promise.all(
  dirs.map(async (dir) => {
    const { AuditPublisher, auditTime } = await import(`${pathToFileURL(path.resolve(dir)).href}/audit.ts`);
    return { dir, audit: new AuditPublisher(nats, log), auditTime };
  }),
);

let n = 0;
/** CPU µs of this process over one window of `SEC` s in which `record` runs `RATE` times a second. */
async function window(record?: () => void): Promise<number> {
  const start = process.cpuUsage();
  const ticks = RATE / 100; // a 10 ms timer records this many at a time
  for (let t = 0; t < SEC * 100; t++) {
    if (record) for (let i = 0; i < ticks; i++) record();
    await new Promise((r) => setTimeout(r, 10));
  }
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

for (let r = 0; r < ROUNDS + 1; r++) {
  const idle = await window();
  for (const p of publishers) {
    const before = p.audit.published;
    const cpu = await window(() =>
      p.audit.record({
        requestId: `req_${process.pid}_${n++}`,
        tenant: "cost-co",
        keyId: "key_0123456789abcdef0123",
        ability: "payout.send",
        status: 200,
        durationMs: 3.25,
        inputHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        at: p.auditTime(),
      }),
    );
    await p.audit.flush();
    const records = p.audit.published - before;
    // Round 0 warms up.
    if (r > 0)
      console.log(
        `${p.dir}: ${((cpu - idle) / records).toFixed(1)} µs of CPU a record (${records} records, idle ${idle} µs)`,
      );
  }
}
await nats.nc.drain();
