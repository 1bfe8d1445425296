/**
 * @module workspace/context
 * What every handler of the service receives as `ctx` besides its input and call: the Prisma client
 * and the pool under it (the kit's tenant-scoped pool, so every query is held to the call's tenant
 * by row-level security), the parsed configuration, NATS, the logger, the workflow endpoints, where the vertical
 * manifests are, and the clock. Built once by `init` in service.ts.
 *
 * @example
 * // src/abilities/contact.get.ts
 * export default ability("contact.get", async (input, call, ctx) => …);
 */
import type pg from "pg";
import { abilityOf, type Logger, type Nats, type OutboxRelay } from "@gantry/kit";
import type { PrismaClient } from "./db.ts";
import type { WorkflowEndpoint, WorkspaceConfig } from "./config.ts";

export interface Context {
  db: PrismaClient;
  /** The same tenant-scoped pool, for the hot reads written as prepared statements (src/reads.ts). */
  pool: pg.Pool;
  config: WorkspaceConfig;
  nats: Nats;
  log: Logger;
  /** Tenant → workflow endpoint (WORKFLOW_ENDPOINTS). */
  endpoints: Map<string, WorkflowEndpoint>;
  /** Directory of vertical manifests, read on every serve. */
  verticalsDir: string;
  now: () => Date;
  /** The workflow deliverer started by `init` (stopped by `close`; handlers do not use it). */
  deliverer: { stop: () => Promise<void> };
  /** The outbox relay: workflow outcomes written with the run's status, published once committed. */
  outbox: OutboxRelay;
}

/** `ability(id, run)`: declares the handler of one ability (one file per ability under abilities/). */
export const ability = abilityOf<Context>();
