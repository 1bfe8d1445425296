/**
 * The gateway's `runAbility` and its dependencies with what lies outside the process stood in for,
 * for the scripts that measure the pipeline in one process (pipeline-cost.ts, run-path-cost.ts).
 * Every module is loaded from the `src` directory given, so the code before a change can be measured
 * beside it (a checkout or worktree of that commit, with `node_modules` linked to this one's).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createLogger, generateKey, type KeyRecord } from "@gantry/kit";
import type { PermitGate } from "../src/pipeline/run-permit.ts";

/** What the caller stands in for: the owner's hop, and the trust service's PermitGate when it needs one. */
export interface StandIns {
  dispatcher: { execute: (...args: never[]) => Promise<unknown> };
  /** Builds the PermitGate with the loaded code's class; default: one no call reaches. */
  permits?: (gate: typeof PermitGate) => PermitGate;
}

export async function standInGateway(srcDir: string, standIns: StandIns) {
  const dir = pathToFileURL(path.resolve(srcDir)).href;
  const load = (file: string) => import(`${dir}/${file}`);
  const { runAbility } = await load("pipeline/execute-ability.ts");
  const { KeyCache } = await load("key-cache.ts");
  const { MemoryRateLimiter } = await load("rate-limit/memory.ts");
  const { createMetrics } = await load("metrics.ts");
  const { AuditPublisher } = await load("audit.ts");
  const { UsageReporter } = await load("usage.ts");
  const { AuthFailures } = await load("pipeline/auth-failures.ts");
  const { PermitGate: Gate } = await load("pipeline/run-permit.ts");
  const { loadGatewayConfig } = await load("config.ts");

  const log = createLogger("pipeline-cost", "warn");
  const record = {
    id: "key_bench",
    tenant: "bench",
    scopes: ["*"],
    collections: ["bench"],
    products: [],
    admin: false,
    sub_tenants: false,
    expires_at_ms: 0,
    sunset_at_ms: 0,
    created_at_ms: 0,
    source: "db",
  } as unknown as KeyRecord;
  const limiter = new MemoryRateLimiter();
  const deps = {
    config: loadGatewayConfig({ ...process.env, GANTRY_CALL_AUTH: "off" }),
    log,
    version: "0",
    keys: new KeyCache({ unary: async () => record }, 30_000, log),
    limiter,
    authFailures: new AuthFailures(limiter, 60),
    clientAddress: () => "127.0.0.1",
    defaultRateLimit: { limit: 1e9, windowSeconds: 60 },
    dispatcher: standIns.dispatcher,
    liveStatus: {},
    // Each batch is encoded as for JetStream; the publish itself is not made (`js` for the code
    // before the audit's batch publisher, which published through it).
    audit: new AuditPublisher({ js: { publish: async () => ({}) } }, log, {
      publishAll: async (messages: readonly unknown[]) => messages.map(() => undefined),
      close: () => {},
    }),
    metrics: createMetrics(),
    usage: new UsageReporter({ unary: async () => ({}) }, log, 1e9),
    health: new Map(),
    ingress: () => {
      throw new Error("no ingress here");
    },
    permits: standIns.permits ? standIns.permits(Gate) : new Gate("127.0.0.1:1", 1_000),
    now: Date.now,
  };
  return {
    /** `runAbility` of the loaded code, bound to the stood-in dependencies. */
    runAbility: (request: unknown) => runAbility(request, deps),
    /** A key the stood-in key cache answers for (scopes `*`). */
    key: generateKey(),
  };
}
