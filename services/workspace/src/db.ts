/**
 * @module workspace/db
 * The types of the workspace service's Prisma client (generated from prisma/schema.prisma). The
 * client itself is made in service.ts with the kit's `prismaClient`, over the tenant-scoped pool.
 */
import type { PrismaClient, Prisma } from "./generated/prisma/client.ts";

export type { PrismaClient, Prisma };
export type {
  Contact,
  Lead,
  LeadEvent,
  Task,
  TaskEvent,
  Doc,
  DocComment,
  WorkflowRun,
  Simulation,
} from "./generated/prisma/client.ts";

/** The service's Postgres schema (its `idempotency_records` table lives there). */
export const SCHEMA = "workspace";
