/**
 * What the gateway's policies cost on a one-hop call (issue 30; docs/benchmarks.md, full chain vs
 * passthrough floor), in CPU per response of each process (from /proc) rather than req/s, which
 * moves with how busy the shared machine is. On one stack (gateway, keys, web, Postgres, NATS) it
 * loads, in alternating slices, the passthrough floor (bench/servers/passthrough.ts: the same
 * route, body reader, dispatcher and response writer without the policies) and the real gateway
 * on `web.research` (switched off, as in the bench: one hop, web answers 501) and `key.inspect`
 * (one hop and a Postgres read), `C` connections (autocannon, as the bench) for `SEC` seconds per
 * slice, `ROUNDS` rounds. With `PROF_DIR` the gateway and the passthrough server write a
 * `--cpu-prof` profile there when they stop. `TARGETS` picks targets (comma-separated, e.g.
 * `gantry:web.research,passthrough:web.research`). With `BASE_MAIN` (another checkout's
 * `gateway/src/main.ts`) a second gateway runs that code on the same stack, as the `base:<ability>`
 * targets, so a change is measured side by side with the code before it.
 *
 * @example
 * ROUNDS=3 SEC=5 C=64 node_modules/.bin/node gateway/scripts/cost-per-call.ts
 * BASE_MAIN=/tmp/before/gateway/src/main.ts TARGETS=base:web.research,gantry:web.research node_modules/.bin/node gateway/scripts/cost-per-call.ts
 */
import { abilityById } from "@gantry/proto/catalogue";
import { startTestStack } from "@gantry/infra/testing/stack.ts";
import { insertBenchKey, startGateway, startPassthrough } from "../../bench/lib/gantry.ts";
import { runLoad } from "../../bench/lib/load.ts";
import { cpuTicksByRoot, CLK_TCK } from "../../bench/lib/proc-stats.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SEC = Number(process.env.SEC ?? 5);
const C = Number(process.env.C ?? 64);
const ALL = ["passthrough:web.research", "gantry:web.research", "passthrough:key.inspect", "gantry:key.inspect"];
const TARGETS = process.env.TARGETS?.split(",") ?? ALL;
const prof = process.env.PROF_DIR ? `--cpu-prof --cpu-prof-dir=${process.env.PROF_DIR}` : undefined;

// The bench's stack settings (bench/lib/gantry.ts, startGantryStack), on the services these calls reach.
const t = await startTestStack({
  services: ["keys", "web"],
  gateways: 0,
  healthTimeoutMs: 120_000,
  env: {
    RATE_LIMIT_DEFAULT: "1000000000",
    LOG_LEVEL: "info",
    GANTRY_CHECK_RESULTS: "0",
    GANTRY_DISABLED_ABILITIES: "web.research",
  },
});
const key = await insertBenchKey(t);
const gateway = await startGateway(t, prof);
const base = process.env.BASE_MAIN ? await startGateway(t, prof, process.env.BASE_MAIN, { name: "base" }) : undefined;
// startPassthrough passes this process's environment on, so the profiler reaches it this way.
if (prof) process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, prof].filter(Boolean).join(" ");
const pt = await startPassthrough(t, key);

const procs: Record<string, number | undefined> = {
  gateway: gateway.pid,
  base: base?.pid,
  passthrough: pt.pid,
  web: t.stack.pid("web"),
  keys: t.stack.pid("keys"),
  postgres: t.stack.pid("postgres"),
  nats: t.stack.pid("nats"),
};
const roots = Object.values(procs).filter((p): p is number => p !== undefined);

interface Tally {
  responses: number;
  seconds: number;
  ticks: Record<string, number>;
  statuses: Record<string, number>;
}
const tallies = new Map<string, Tally>(
  TARGETS.map((id) => [id, { responses: 0, seconds: 0, ticks: {}, statuses: {} }]),
);

async function slice(target: string, warmupSec: number): Promise<void> {
  const [group, ability] = target.split(":");
  const front = { gantry: gateway, base, passthrough: pt }[group];
  if (!front) throw new Error(`no server for ${target} (base: needs BASE_MAIN)`);
  const spec = {
    url: `${front.url}/v1/abilities/${ability}`,
    method: "POST" as const,
    headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
    body: JSON.stringify({ input: abilityById.get(ability)!.example ?? {} }),
    connections: C,
    durationSec: SEC,
    warmupSec: 0,
  };
  if (warmupSec > 0) await runLoad({ ...spec, durationSec: warmupSec });
  const before = cpuTicksByRoot(roots);
  const load = await runLoad(spec);
  const after = cpuTicksByRoot(roots);
  const tally = tallies.get(target)!;
  tally.responses += load.responses;
  tally.seconds += load.seconds;
  for (const [name, pid] of Object.entries(procs)) {
    if (pid === undefined) continue;
    tally.ticks[name] = (tally.ticks[name] ?? 0) + (after.get(pid)! - before.get(pid)!);
  }
  for (const [s, n] of Object.entries(load.statuses)) tally.statuses[s] = (tally.statuses[s] ?? 0) + n;
}

try {
  for (const target of TARGETS) await slice(target, 1);
  for (const tally of tallies.values()) Object.assign(tally, { responses: 0, seconds: 0, ticks: {}, statuses: {} });
  for (let r = 0; r < ROUNDS; r++) for (const target of TARGETS) await slice(target, 0);
  console.log(`${ROUNDS} rounds × ${SEC} s × ${C} connections per target, alternating; CPU µs per response`);
  for (const [target, tally] of tallies) {
    const per = Object.entries(tally.ticks)
      .filter(([, ticks]) => ticks > 0)
      .map(([name, ticks]) => `${name} ${(((ticks / CLK_TCK) * 1e6) / tally.responses).toFixed(0)}`)
      .join(", ");
    const group = target.split(":")[0];
    const front = tally.ticks[group === "gantry" ? "gateway" : group] ?? 0;
    console.log(
      `${target.padEnd(26)} ${(tally.responses / tally.seconds).toFixed(0).padStart(6)} req/s, front ${(((front / CLK_TCK) * 1e6) / tally.responses).toFixed(0)} µs; ${per}; statuses ${JSON.stringify(tally.statuses)}`,
    );
  }
} finally {
  await Promise.allSettled([gateway.stop(15_000), base?.stop(15_000), pt.stop(15_000)]);
  await t.stop();
}
