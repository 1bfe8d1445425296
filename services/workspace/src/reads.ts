/**
 * @module workspace/reads
 * The hot reads as prepared statements (kit/src/data/prepared.ts), columns aliased to the Prisma
 * model so rows feed the same mappers (records.ts). Everything else goes through Prisma.
 */
import { preparedQuery } from "@gantry/kit";
import type { Contact } from "./db.ts";

/** contact.get: one contact by id (row-level security holds it to the call's tenant). */
export const contactById = preparedQuery<Contact, [id: string, tenant: string]>(
  "workspace.contact_by_id",
  `SELECT id, tenant, name, email, phone, company, metadata, vertical,
          created_at AS "createdAt", updated_at AS "updatedAt"
     FROM workspace.contacts WHERE id = $1 AND tenant = $2`,
);
