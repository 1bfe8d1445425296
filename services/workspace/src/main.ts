/**
 * @module workspace/main
 * The workspace service: the tenant's working records (contacts, leads, tasks, workspace docs),
 * tenant events on JetStream, workflow runs with signed webhook delivery, vertical manifests, and
 * simulations. This file only assembles: config, the Prisma client, the streams, the workflow
 * deliverer, and the handler of each ability (one file per ability under abilities/).
 */
import { STREAMS, ensureStream, main, type AbilityHandler } from "@gantry/kit";
import { createDb, type PrismaClient } from "./db.ts";
import { DEFAULT_VERTICALS_DIR, WORKSPACE_ENV, parseWorkflowEndpoints, type WorkspaceConfig } from "./config.ts";
import type { Handler, Workspace } from "./workspace.ts";
import { startWorkflowDeliverer } from "./workflows/deliverer.ts";
import { listVerticalIds, loadManifest } from "./verticals/manifests.ts";
import * as contactCreate from "./abilities/contact.create.ts";
import * as contactGet from "./abilities/contact.get.ts";
import * as contactList from "./abilities/contact.list.ts";
import * as contactUpdate from "./abilities/contact.update.ts";
import * as leadCreate from "./abilities/lead.create.ts";
import * as leadGet from "./abilities/lead.get.ts";
import * as leadList from "./abilities/lead.list.ts";
import * as leadUpdateStatus from "./abilities/lead.update_status.ts";
import * as taskCreate from "./abilities/task.create.ts";
import * as taskGet from "./abilities/task.get.ts";
import * as taskList from "./abilities/task.list.ts";
import * as taskUpdateStatus from "./abilities/task.update_status.ts";
import * as docClose from "./abilities/workspace.doc.close.ts";
import * as docComment from "./abilities/workspace.doc.comment.ts";
import * as docCreate from "./abilities/workspace.doc.create.ts";
import * as docList from "./abilities/workspace.doc.list.ts";
import * as docPatch from "./abilities/workspace.doc.patch.ts";
import * as docRead from "./abilities/workspace.doc.read.ts";
import * as eventEmit from "./abilities/event.emit.ts";
import * as workflowTrigger from "./abilities/workflow.trigger.ts";
import * as verticalList from "./abilities/vertical.list.ts";
import * as verticalManifestGet from "./abilities/vertical.manifest_get.ts";
import * as simGenerate from "./abilities/sim.generate.ts";
import * as simList from "./abilities/sim.list.ts";

const HANDLERS: Record<string, Handler> = {
  "contact.create": contactCreate.handler,
  "contact.get": contactGet.handler,
  "contact.list": contactList.handler,
  "contact.update": contactUpdate.handler,
  "lead.create": leadCreate.handler,
  "lead.get": leadGet.handler,
  "lead.list": leadList.handler,
  "lead.update_status": leadUpdateStatus.handler,
  "task.create": taskCreate.handler,
  "task.get": taskGet.handler,
  "task.list": taskList.handler,
  "task.update_status": taskUpdateStatus.handler,
  "workspace.doc.close": docClose.handler,
  "workspace.doc.comment": docComment.handler,
  "workspace.doc.create": docCreate.handler,
  "workspace.doc.list": docList.handler,
  "workspace.doc.patch": docPatch.handler,
  "workspace.doc.read": docRead.handler,
  "event.emit": eventEmit.handler,
  "workflow.trigger": workflowTrigger.handler,
  "vertical.list": verticalList.handler,
  "vertical.manifest_get": verticalManifestGet.handler,
  "sim.generate": simGenerate.handler,
  "sim.list": simList.handler,
};

let db: PrismaClient | undefined;
let ws: Workspace;
let deliverer: { stop: () => Promise<void> } | undefined;

main<WorkspaceConfig>({
  name: "workspace",
  env: WORKSPACE_ENV,
  init: async (deps) => {
    const endpoints = parseWorkflowEndpoints(deps.config.WORKFLOW_ENDPOINTS, deps.config.WORKFLOW_ALLOW_LOOPBACK);
    db = createDb(deps);
    ws = {
      db,
      config: deps.config,
      nats: deps.nats,
      log: deps.log,
      endpoints,
      verticalsDir: deps.config.VERTICALS_DIR ?? DEFAULT_VERTICALS_DIR,
      now: () => new Date(),
    };
    const maxAge = deps.config.EVENTS_MAX_AGE_HOURS * 3600 * 1e9;
    await ensureStream(deps.nats.jsm, { ...STREAMS.EVENTS, subjects: [...STREAMS.EVENTS.subjects], max_age: maxAge });
    await ensureStream(deps.nats.jsm, { ...STREAMS.WORKFLOWS, subjects: [...STREAMS.WORKFLOWS.subjects], max_age: maxAge });
    deliverer = startWorkflowDeliverer(ws);
    if (deps.config.WORKFLOW_ALLOW_LOOPBACK) deps.log.warn("WORKFLOW_ALLOW_LOOPBACK is on: workflow deliveries may go to loopback addresses over plain http (tests and local development only)");
    deps.log.info({ tenants: [...endpoints.keys()] }, "workflow endpoints configured");
    for (const id of await listVerticalIds(ws.verticalsDir)) {
      const loaded = await loadManifest(ws.verticalsDir, id);
      if (loaded?.findings.length) deps.log.warn({ vertical: id, findings: loaded.findings.slice(0, 10) }, "vertical manifest fails lint; it will be refused until fixed");
    }
  },
  abilities: () => Object.fromEntries(Object.entries(HANDLERS).map(([id, h]) => [id, ((input, call) => h(input, call, ws)) as AbilityHandler<WorkspaceConfig>])),
  close: async () => {
    await deliverer?.stop();
    await db?.$disconnect();
  },
});
