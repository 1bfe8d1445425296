/**
 * @module workspace/service
 * The workspace service: the tenant's working records (contacts, leads, tasks, workspace docs),
 * tenant events on JetStream, workflow runs with signed webhook delivery, vertical manifests, and
 * simulations. `init` builds the handlers' context: config, the Prisma client over the kit's
 * tenant-scoped pool, the streams, the workflow deliverer. The handlers are found by the kit, one
 * file per ability under abilities/.
 *
 * `init` runs in system scope, and so does what it starts: the workflow deliverer consumes every
 * tenant's triggers (it scopes each message to the run's tenant itself, workflows/deliverer.ts).
 */
import { STREAMS, defineService, ensureStream, prismaClient, startOutboxRelay } from "@gantry/kit";
import { PrismaClient } from "./generated/prisma/client.ts";
import { DEFAULT_VERTICALS_DIR, WORKSPACE_ENV, parseWorkflowEndpoints } from "./config.ts";
import type { Context } from "./context.ts";
import { startWorkflowDeliverer } from "./workflows/deliverer.ts";
import { listVerticalIds, loadManifest } from "./verticals/manifests.ts";

export default defineService({
  name: "workspace",
  env: WORKSPACE_ENV,
  init: async (deps): Promise<Context> => {
    const { config, log, nats } = deps;
    const endpoints = parseWorkflowEndpoints(config.WORKFLOW_ENDPOINTS, config.WORKFLOW_ALLOW_LOOPBACK);
    const db = prismaClient(deps, PrismaClient);
    const verticalsDir = config.VERTICALS_DIR ?? DEFAULT_VERTICALS_DIR;
    const now = () => new Date();
    const maxAge = config.EVENTS_MAX_AGE_HOURS * 3600 * 1e9;
    await ensureStream(nats.jsm, { ...STREAMS.EVENTS, subjects: [...STREAMS.EVENTS.subjects], max_age: maxAge });
    await ensureStream(nats.jsm, { ...STREAMS.WORKFLOWS, subjects: [...STREAMS.WORKFLOWS.subjects], max_age: maxAge });
    if (config.WORKFLOW_ALLOW_LOOPBACK) {
      log.warn(
        "WORKFLOW_ALLOW_LOOPBACK is on: workflow deliveries may go to loopback addresses over plain http (tests and local development only)",
      );
    }
    log.info({ tenants: [...endpoints.keys()] }, "workflow endpoints configured");
    for (const id of await listVerticalIds(verticalsDir)) {
      const loaded = await loadManifest(verticalsDir, id);
      if (loaded?.findings.length) {
        log.warn(
          { vertical: id, findings: loaded.findings.slice(0, 10) },
          "vertical manifest fails lint; it will be refused until fixed",
        );
      }
    }
    // Started last, so a failure above leaves nothing running.
    if (!deps.pool) throw new Error("workspace: no database pool (DATABASE_URL)");
    const outbox = startOutboxRelay({ pool: deps.pool, schema: "workspace", nats, log });
    const deliverer = startWorkflowDeliverer({ db, config, nats, log, endpoints, now, outbox });
    return { db, pool: deps.pool, config, nats, log, endpoints, verticalsDir, now, deliverer, outbox };
  },
  close: async (ctx) => {
    await ctx.deliverer.stop();
    await ctx.outbox.stop();
    await ctx.db.$disconnect();
  },
});
