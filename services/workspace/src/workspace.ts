/**
 * @module workspace/workspace
 * What every handler of the service receives besides its input and call: the Prisma client, the
 * parsed configuration, NATS, the logger. Built once in main.ts `init`.
 */
import type { CallContext, Logger, Nats } from "@gantry/kit";
import type { PrismaClient } from "./db.ts";
import type { WorkflowEndpoint, WorkspaceConfig } from "./config.ts";

export interface Workspace {
  db: PrismaClient;
  config: WorkspaceConfig;
  nats: Nats;
  log: Logger;
  /** Tenant → workflow endpoint (WORKFLOW_ENDPOINTS). */
  endpoints: Map<string, WorkflowEndpoint>;
  /** Directory of vertical manifests, read on every serve. */
  verticalsDir: string;
  now: () => Date;
}

/** An ability handler of this service. Input arrives validated and defaulted. */
export type Handler<I = any, O = unknown> = (input: I, call: CallContext, ws: Workspace) => Promise<O>;
