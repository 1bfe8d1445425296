/**
 * @module memory/db
 * The memory service's generated Prisma client (schema "memory"); service.ts creates it over the
 * kit's tenant-scoped driver adapter with `prismaClient(deps, PrismaClient)`.
 */
export { PrismaClient } from "./generated/prisma/client.ts";
export type { ConsolidatedLesson } from "./generated/prisma/client.ts";
