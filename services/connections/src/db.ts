/**
 * @module connections/db
 * The connections service's generated Prisma client and types (the client is created by the kit's
 * `prismaClient(deps, PrismaClient)` in service.ts, over the tenant-scoped pool).
 */
export { PrismaClient, type Prisma } from "./generated/prisma/client.ts";
export type {
  Connection,
  ConnectionShare,
  OauthSession,
  ConnectionEvent,
  ToolExecution,
} from "./generated/prisma/client.ts";

/** The service's Postgres schema (raw SQL names its tables with it). */
export const SCHEMA = "connections";
