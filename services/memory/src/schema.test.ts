/**
 * The memory service's Prisma schema and its hand-written migrations agree, the runner records them
 * the way `prisma migrate deploy` would, and every tenant table is under row-level security (the
 * shared suite, infra/testing/schema-suite.ts).
 */
import { schemaSuite } from "@gantry/infra/testing/schema-suite.ts";

schemaSuite("memory");
