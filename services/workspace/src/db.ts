/**
 * @module workspace/db
 * The workspace service's Prisma client, bound to the "workspace" schema through the kit's driver
 * adapter, and the translation of database errors into domain errors in one place.
 */
import type { ServiceDeps } from "@gantry/kit";
import { PrismaClient, type Prisma } from "./generated/prisma/client.ts";

export type { PrismaClient, Prisma };
export type { Contact, Lead, LeadEvent, Task, TaskEvent, Doc, DocComment, WorkflowRun, Simulation } from "./generated/prisma/client.ts";

/** The client of an interactive transaction. */
export type Tx = Prisma.TransactionClient;

export function createDb(deps: ServiceDeps): PrismaClient {
  if (!deps.prismaAdapter) throw new Error("workspace service started without a database");
  return new PrismaClient({ adapter: deps.prismaAdapter });
}

/** True for a unique-constraint violation (Prisma P2002 or Postgres 23505 through the adapter). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; meta?: { code?: unknown }; cause?: { code?: unknown } } | null;
  if (!e) return false;
  if (e.code === "P2002" || e.code === "23505") return true;
  if (e.meta?.code === "23505" || e.cause?.code === "23505") return true;
  return /unique constraint/i.test(String((err as Error).message ?? ""));
}

/** Schema-qualified table name for the few raw statements (row locks). */
export const SCHEMA = "workspace";
