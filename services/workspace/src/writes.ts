/**
 * @module workspace/writes
 * The hot creates as single prepared statements (kit `idempotentInsert`), instead of a Prisma
 * interactive transaction. Everything else goes through Prisma.
 */
import type { Contact } from "./db.ts";

/**
 * contact.create: the new contact. Only `metadata` comes back: JSONB normalises what it stores (key
 * order, duplicate keys), and the answer shows what was stored; every other column is what was
 * written.
 */
export function insertContact(c: Contact) {
  return {
    name: "workspace.insert_contact",
    text: `INSERT INTO workspace.contacts (id, tenant, name, email, phone, company, metadata, vertical, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10) RETURNING metadata`,
    values: [
      c.id,
      c.tenant,
      c.name,
      c.email,
      c.phone,
      c.company,
      JSON.stringify(c.metadata),
      c.vertical,
      c.createdAt,
      c.updatedAt,
    ],
  };
}
