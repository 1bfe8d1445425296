/**
 * @module content/db
 * The content service's generated Prisma client and types (created by the kit's
 * `prismaClient(deps, PrismaClient)` in service.ts, over the tenant-scoped pool).
 */
export { PrismaClient, type Prisma } from "./generated/prisma/client.ts";
export type { Artifact, Delivery, DeliveryRecipient, Guide } from "./generated/prisma/client.ts";

/** The service's Postgres schema (raw SQL and idempotency name its tables with it). */
export const SCHEMA = "content";
