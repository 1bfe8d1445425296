/**
 * @module keys/db
 * The keys service's Prisma client, bound to the "keys" schema through the kit's driver adapter.
 */
import type { ServiceDeps } from "@gantry/kit";
import { PrismaClient } from "./generated/prisma/client.ts";

export type { PrismaClient };

export function createDb(deps: ServiceDeps): PrismaClient {
  if (!deps.prismaAdapter) throw new Error("keys service started without a database");
  return new PrismaClient({ adapter: deps.prismaAdapter });
}
