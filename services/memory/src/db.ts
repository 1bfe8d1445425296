/**
 * @module memory/db
 * The memory service's Prisma client, bound to the "memory" schema through the kit's driver adapter.
 */
import type { ServiceDeps } from "@gantry/kit";
import { PrismaClient } from "./generated/prisma/client.ts";

export type { PrismaClient };

export function createDb(deps: ServiceDeps): PrismaClient {
  if (!deps.prismaAdapter) throw new Error("memory service started without a database");
  return new PrismaClient({ adapter: deps.prismaAdapter });
}
