/**
 * @module workspace/reads
 * The hot reads as prepared statements (kit/src/data/prepared.ts), columns aliased to the Prisma
 * model so rows feed the same mappers (records.ts). Everything else goes through Prisma.
 */
import { batchedLookup } from "@gantry/kit";
import type { Contact } from "./db.ts";

/**
 * contact.get: one contact by id (row-level security holds it to the call's tenant). Reads of one
 * turn go to Postgres as one statement (kit/src/data/batched.ts).
 */
export const contactById = batchedLookup<Contact, [tenant: string]>(
  "workspace.contacts_by_id",
  `SELECT id, tenant, name, email, phone, company, metadata, vertical,
          created_at AS "createdAt", updated_at AS "updatedAt"
     FROM workspace.contacts WHERE id = ANY($1) AND tenant = $2`,
  (row) => row.id,
);
