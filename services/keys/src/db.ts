/**
 * @module keys/db
 * The keys service's generated Prisma client and types (the client is created by the kit's
 * `prismaClient(deps, PrismaClient)` in service.ts, over the tenant-scoped pool).
 */
export { PrismaClient, type Prisma } from "./generated/prisma/client.ts";
