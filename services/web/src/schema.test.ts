/**
 * The web schema checks every service with tables runs (infra/testing/schema-suite.ts):
 * prisma/schema.prisma agrees with the hand-written migration, migrations are recorded and not
 * re-applied, and every table with a `tenant` column is under row-level security.
 */
import { schemaSuite } from "@gantry/infra/testing/schema-suite.ts";

schemaSuite("web");
