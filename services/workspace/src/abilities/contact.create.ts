/**
 * @module workspace/abilities/contact.create
 * Creates a contact in the caller's tenant. The phone is normalised to E.164; an idempotencyKey
 * makes retries return the same contact (see lib/idempotency.ts).
 */
import type { Handler } from "../workspace.ts";
import { newId } from "../lib/ids.ts";
import { idempotentCreate } from "../lib/idempotency.ts";
import { contactOut } from "../lib/records.ts";
import { normalizeEmail, phoneOrThrow } from "../lib/contacts.ts";
import { nonBlank, notFound } from "../lib/errors.ts";

export interface ContactCreateInput {
  name: string;
  phone?: string;
  email?: string;
  company?: string;
  metadata?: Record<string, string | number | boolean>;
  idempotencyKey?: string;
}

export const handler: Handler<ContactCreateInput> = async (input, call, ws) => {
  const name = nonBlank(input.name, "/input/name");
  const phone = input.phone === undefined ? null : phoneOrThrow(input.phone);
  const id = newId("contact");
  const now = ws.now();
  const { result } = await idempotentCreate({
    db: ws.db,
    call,
    ability: "contact.create",
    input: input as unknown as Record<string, unknown>,
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
      const row = await ws.db.contact.findFirst({ where: { id: recordId, tenant: call.tenant } });
      if (!row) throw notFound("contact", recordId);
      return contactOut(row);
    },
  });
  return result;
};
