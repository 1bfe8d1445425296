/**
 * @module bench/lib/scaleout
 * The scale-out group (issue 19): contact.get (one gRPC hop and a Postgres read) through two
 * gateway processes and two workspace replicas, side by side with one gateway and one replica, on
 * one stack (Redis for the rate limits, keys and workspace only: nothing else is on the path).
 *
 * The stack runs workspace twice (`replicas`, infra/runner/stack.ts), so WORKSPACE_ADDR lists both
 * replicas and the gateways' gRPC client rotates calls over them. The 1 × 1 gateway is started with
 * WORKSPACE_ADDR set to the first replica alone; the second replica idles while it is measured.
 * Every gateway shares the Redis limiter, so the two configurations differ in scale only. autocannon
 * takes one URL: the 2 × 2 load is two autocannon runs at once, half the connections each
 * ({@link runSplitLoad}), one per gateway, as a load balancer in front of them would spread it.
 *
 * The machine's cores are the ceiling this measures against: on 2 cores, with the load generator
 * taking most of one, a second gateway and replica can only share what is left, so the ratio says
 * what the processes cost to run side by side, and the per-process CPU says where the cores went.
 */
import type { Child } from "./child.ts";
import { call, insertBenchKey, startGantryStack, startGateway } from "./gantry.ts";
import { allTimes, mergeLoads, runLoad, type LoadResult, type LoadSpec } from "./load.ts";

/** One configuration measured: how many gateway processes, and how many workspace replicas they call. */
export interface ScaleoutShape {
  gateways: number;
  replicas: number;
}

/** The configurations compared, in report order: the baseline first. */
export const SCALEOUT_SHAPES: readonly ScaleoutShape[] = [
  { gateways: 1, replicas: 1 },
  { gateways: 2, replicas: 2 },
];

/** What the bench needs of one configuration to measure it. */
export interface ScaleoutTarget {
  shape: ScaleoutShape;
  id: string;
  label: string;
  note: string;
  /** One gateway URL per gateway process, the load split evenly over them. */
  urls: string[];
  input: { id: string };
  authorization: string;
  procs: () => Array<{ name: string; pid: number }>;
  front: () => number;
  processesLabel: string;
  lines: () => number;
}

export interface ScaleoutSetup {
  targets: ScaleoutTarget[];
  stackSeconds: number;
  stop: () => Promise<void>;
}

export const scaleoutId = (s: ScaleoutShape) => `scaleout:${s.gateways}x${s.replicas}`;

/**
 * Starts the group's stack and gateways and makes the contact.get fixture. Throws (after stopping
 * what it started) when a gateway does not count rate limits in Redis or does not answer
 * contact.get with 200, with the answer in the message.
 */
export async function startScaleout(
  log: (line: string) => void,
  gatewayMain: string,
  children: Child[],
): Promise<ScaleoutSetup> {
  const replicas = Math.max(...SCALEOUT_SHAPES.map((s) => s.replicas));
  log(`scaleout: starting a stack (Postgres, NATS, Redis, keys, workspace × ${replicas})`);
  const { ts, seconds } = await startGantryStack({
    services: ["keys", "workspace"],
    replicas: { workspace: replicas },
    redis: true,
  });
  const started: Array<Child & { url: string }> = [];
  const stop = async () => {
    for (const gw of started) {
      await gw.stop().catch(() => undefined);
      const i = children.indexOf(gw);
      if (i >= 0) children.splice(i, 1);
    }
    await ts.stop();
  };
  try {
    const addrs = ts.stack.env.WORKSPACE_ADDR.split(",");
    const lineCounts = new Map<string, number>();
    ts.stack.onLine((name) => lineCounts.set(name, (lineCounts.get(name) ?? 0) + 1));
    const stackProcs = () =>
      ts.stack
        .names()
        .map((name) => ({ name, pid: ts.stack.pid(name) ?? 0 }))
        .filter((p) => p.pid > 0);
    const key = await insertBenchKey(ts);

    const gateways = await Promise.all(
      SCALEOUT_SHAPES.map((shape) =>
        Promise.all(
          Array.from({ length: shape.gateways }, (_, i) =>
            startGateway(ts, undefined, gatewayMain, {
              name: `gateway ${shape.gateways}x${shape.replicas}${i ? ` #${i + 1}` : ""}`,
              env: { WORKSPACE_ADDR: addrs.slice(0, shape.replicas).join(",") },
            }).then((gw) => {
              started.push(gw);
              children.push(gw);
              return gw;
            }),
          ),
        ),
      ),
    );
    log(`  stack up in ${seconds.toFixed(1)} s; ${started.length} gateways`);

    const id = await contactFixture(gateways[0][0].url, key.key);
    const input = { id };
    for (const gw of gateways.flat()) {
      // What the comparison rests on: every gateway counts in the shared Redis, not on its own.
      const health = (await (await fetch(`${gw.url}/health`)).json()) as { rateLimiter?: string };
      if (health.rateLimiter !== "redis")
        throw new Error(`${gw.name} limits rates with "${health.rateLimiter}", not the shared Redis`);
      // Every replica behind each gateway answers before anything is measured (round robin: n calls reach n replicas).
      for (let i = 0; i < replicas; i++) {
        const probe = await call(gw.url, key.key, "contact.get", input);
        if (probe.status !== 200)
          throw new Error(
            `contact.get through ${gw.name} answered ${probe.status} (${String(probe.body.code ?? "")}: ${String(probe.body.error ?? "").slice(0, 160)})`,
          );
      }
    }

    const targets = SCALEOUT_SHAPES.map((shape, k): ScaleoutTarget => {
      const gws = gateways[k];
      const replicaNames = ["workspace", ...Array.from({ length: replicas - 1 }, (_, i) => `workspace-${i + 2}`)];
      const gwName = (i: number) => (i === 0 ? "gateway" : `gateway-${i + 1}`);
      return {
        shape,
        id: scaleoutId(shape),
        // Short enough for the chart's label column; the ability is in the note and the section.
        label: `scale-out: ${plural(shape.gateways, "gateway")} × ${plural(shape.replicas, "replica")}`,
        note: `${shape.gateways === 1 ? "one gateway process" : `${shape.gateways} gateway processes, the load split evenly over them (${shape.gateways} autocannon runs at once, each with its share of the connections)`}, calling ${shape.replicas === 1 ? "one workspace replica (WORKSPACE_ADDR names it alone; the other replica idles)" : `${shape.replicas} workspace replicas (WORKSPACE_ADDR lists them; the gateway's gRPC client rotates calls over them)`}; per-key rate limit in Redis shared by every gateway (RATE_LIMIT_DEFAULT=10⁹); a stack of keys, workspace, Postgres, NATS and Redis only. contact.get: one gRPC hop and a Postgres read by id. CPU by process shows where the machine's cores went.`,
        urls: gws.map((g) => `${g.url}/v1/abilities/contact.get`),
        input,
        authorization: `Bearer ${key.key}`,
        procs: () => [
          ...gws.map((g, i) => ({ name: gwName(i), pid: g.pid })),
          // Only the replicas this configuration calls (an idle one would only add a zero).
          ...stackProcs().filter(
            (p) => !p.name.startsWith("workspace") || replicaNames.slice(0, shape.replicas).includes(p.name),
          ),
        ],
        front: () => gws[0].pid,
        processesLabel: `${plural(shape.gateways, "gateway")}, ${plural(shape.replicas, "workspace replica", "workspace replicas")}, keys, Postgres, NATS, Redis`,
        lines: () =>
          gws.reduce((n, g) => n + g.lines(), 0) +
          [...lineCounts.entries()]
            .filter(([name]) => !name.startsWith("workspace") || replicaNames.slice(0, shape.replicas).includes(name))
            .reduce((n, [, c]) => n + c, 0),
      };
    });
    return { targets, stackSeconds: seconds, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

async function contactFixture(gatewayUrl: string, key: string): Promise<string> {
  const created = await call(gatewayUrl, key, "contact.create", {
    name: "Bench Scale-out",
    company: "Northwind Studio",
  });
  const id = (created.body.result as Record<string, unknown> | undefined)?.id;
  if (created.status !== 200 || typeof id !== "string")
    throw new Error(
      `contact.create for the scale-out fixture answered ${created.status} (${String(created.body.code ?? "")})`,
    );
  return id;
}

/**
 * One load spread over several URLs at once (one autocannon run per URL, the connections divided
 * as evenly as they go), reported as one run: responses and rates add up, percentiles are over
 * every response of every URL. `times` receives every latency, sorted (as {@link runLoad}'s).
 */
export async function runSplitLoad(
  spec: LoadSpec,
  urls: readonly string[],
  times?: (sorted: Float64Array) => void,
): Promise<LoadResult> {
  if (urls.length <= 1) return runLoad({ ...spec, url: urls[0] ?? spec.url }, times);
  const parts = await Promise.all(
    urls.map(async (url, i) => {
      const connections = Math.floor(spec.connections / urls.length) + (i < spec.connections % urls.length ? 1 : 0);
      let t: Float64Array = new Float64Array(0);
      const load = await runLoad({ ...spec, url, connections: Math.max(1, connections) }, (x) => (t = x));
      return { load, times: t };
    }),
  );
  const merged = mergeConcurrent(parts);
  times?.(merged.times);
  return merged.load;
}

/**
 * Runs that happened at the same time, as one: counts add up as {@link mergeLoads} adds slices, but
 * the rates add up too and the seconds are the longest run's (slices follow each other; these overlap).
 */
export function mergeConcurrent(parts: ReadonlyArray<{ load: LoadResult; times: Float64Array }>): {
  load: LoadResult;
  times: Float64Array;
} {
  const all = allTimes(parts);
  const load = {
    ...mergeLoads(parts),
    rps: parts.reduce((t, p) => t + p.load.rps, 0),
    seconds: Math.max(...parts.map((p) => p.load.seconds)),
  };
  return { load, times: all };
}
