/**
 * @module trust/db
 * The trust service's generated Prisma client and types (created by the kit's
 * `prismaClient(deps, PrismaClient)` in service.ts, over the tenant-scoped pool).
 */
export { PrismaClient, type Prisma } from "./generated/prisma/client.ts";
export type { Checklist, Claim, Permit, Plan, PlanLesson, Receipt, Run } from "./generated/prisma/client.ts";
