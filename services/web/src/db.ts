/**
 * @module web/db
 * The web service's generated Prisma client and types (the client is created by the kit's
 * `prismaClient(deps, PrismaClient)` in service.ts, over the tenant-scoped pool).
 */
export { PrismaClient, type Prisma } from "./generated/prisma/client.ts";
export type { Capture } from "./generated/prisma/client.ts";
