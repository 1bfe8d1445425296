/**
 * @module payments/db
 * The payments service's generated Prisma client and types (created by the kit's
 * `prismaClient(deps, PrismaClient)` in service.ts, over the tenant-scoped pool).
 */
export { PrismaClient, type Prisma } from "./generated/prisma/client.ts";
export type { Payment, PaymentEvent, Payout, PayoutBatch, Recipient } from "./generated/prisma/client.ts";

/** The service's Postgres schema (raw SQL names its tables with it). */
export const SCHEMA = "payments";
