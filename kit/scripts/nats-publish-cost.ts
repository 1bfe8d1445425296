/**
 * Client CPU of a JetStream publish with nats.js's async traces on (its default) and off (what
 * kit/src/nats.ts sets), alternated in one process: 32 publishes at once, as an outbox relay round
 * or the gateway's audit batches send them.
 *
 *   nats-server -p 14222 -js -sd /tmp/nats-cost &
 *   NATS_URL=127.0.0.1:14222 node kit/scripts/nats-publish-cost.ts
 */
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";

const url = process.env.NATS_URL ?? "127.0.0.1:4222";
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const N = Number(process.env.N ?? 10_000);
const AT_ONCE = 32;
const payload = new TextEncoder().encode(JSON.stringify({ record: "x".repeat(200) }));

async function cpuPerPublish(nc: NatsConnection, n: number, tag: string): Promise<number> {
  const js = jetstream(nc);
  const start = process.cpuUsage();
  for (let i = 0; i < n; i += AT_ONCE)
    await Promise.all(
      Array.from({ length: AT_ONCE }, (_, k) => js.publish("cost.publish", payload, { msgID: `${tag}-${i}-${k}` })),
    );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const traces = await connect({ servers: url });
const none = await connect({ servers: url, noAsyncTraces: true });
const jsm = await jetstreamManager(traces);
await jsm.streams.add({ name: "COST", subjects: ["cost.>"], max_msgs: 100_000 }).catch(() => {});
const run = `${process.pid}-${Date.now()}`;
await cpuPerPublish(traces, 5_000, `${run}-warm-a`);
await cpuPerPublish(none, 5_000, `${run}-warm-b`);
for (let r = 0; r < ROUNDS; r++) {
  const withTraces = await cpuPerPublish(traces, N, `${run}-${r}-a`);
  const without = await cpuPerPublish(none, N, `${run}-${r}-b`);
  console.log(
    `round ${r + 1}: async traces ${withTraces.toFixed(1)} us, noAsyncTraces ${without.toFixed(1)} us CPU a publish`,
  );
}
await jsm.streams.delete("COST").catch(() => {});
await traces.close();
await none.close();
