/**
 * @module workspace/abilities/contact.create
 * Creates a contact in the caller's tenant. The phone is normalised to E.164; an idempotencyKey
 * makes retries return the same contact (the kit's `idempotentCreate`).
 */
import { idempotentCreate } from "@gantry/kit";
import { ability } from "../context.ts";
import { SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { contactOut } from "../records.ts";
import { normalizeEmail, phoneOrThrow } from "../contacts.ts";
import { nonBlank, notFound } from "../errors.ts";

export default ability("contact.create", async (input, call, ctx) => {
  const name = nonBlank(input.name, "/input/name");
  const phone = input.phone === undefined ? null : phoneOrThrow(input.phone);
  const id = newId("contact");
  const now = ctx.now();
  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "contact.create",
    input,
    recordId: id,
    create: async (tx) =>
      contactOut(
        await tx.contact.create({
          data: {
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
          },
        }),
      ),
    replay: async (recordId) => {
      const row = await ctx.db.contact.findFirst({ where: { id: recordId, tenant: call.tenant } });
      if (!row) throw notFound("contact", recordId);
      return contactOut(row);
    },
  });
  return result;
});
