/**
 * @module workspace/abilities/contact.create
 * Creates a contact in the caller's tenant. The phone is normalised to E.164; an idempotencyKey
 * makes retries return the same contact. One prepared INSERT (writes.ts) through the kit's
 * `idempotentInsert`, which also carries the idempotency row, rather than a Prisma transaction.
 */
import { idempotentInsert, notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { SCHEMA, type Contact } from "../db.ts";
import { newId } from "../ids.ts";
import { contactOut } from "../records.ts";
import { normalizeEmail, phoneOrThrow } from "../contacts.ts";
import { nonBlank } from "../errors.ts";
import { contactById } from "../reads.ts";
import { insertContact } from "../writes.ts";

export default ability("contact.create", async (input, call, ctx) => {
  const name = nonBlank(input.name, "/input/name");
  const phone = input.phone === undefined ? null : phoneOrThrow(input.phone);
  const id = newId("contact");
  const now = ctx.now();
  const contact: Contact = {
    id,
    tenant: call.tenant,
    name,
    email: input.email === undefined ? null : normalizeEmail(input.email),
    phone,
    company: input.company?.trim() ?? null,
    metadata: input.metadata ?? {},
    vertical: call.verticalId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  const { result } = await idempotentInsert({
    pool: ctx.pool,
    schema: SCHEMA,
    call,
    ability: "contact.create",
    input,
    recordId: id,
    insert: insertContact(contact),
    result: (row: Pick<Contact, "metadata">) => contactOut({ ...contact, metadata: row.metadata }),
    replay: async (recordId) => {
      const row = await contactById(ctx.pool, recordId, call.tenant);
      if (!row) throw notFound("contact", recordId);
      return contactOut(row);
    },
  });
  return result;
});
