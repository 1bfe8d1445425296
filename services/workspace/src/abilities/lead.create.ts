/**
 * @module workspace/abilities/lead.create
 * Creates a lead in status `new` (the creation is the first entry of its history). A contactId must
 * name a contact of the same tenant; the lead's email and company default to the contact's. The
 * value is stored in integer minor units of its currency.
 */
import { GantryError, idempotentCreate, notFound } from "@gantry/kit";
import { toMinor } from "@gantry/kit/money.ts";
import { ability } from "../context.ts";
import { SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { leadOut } from "../records.ts";
import { normalizeEmail } from "../contacts.ts";
import { nonBlank } from "../errors.ts";

export default ability("lead.create", async (input, call, ctx) => {
  const name = nonBlank(input.name, "/input/name");
  const valueMinor = input.value ? toMinor(input.value.amount, input.value.currency, "/input/value") : null;
  const id = newId("lead");
  const now = ctx.now();
  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "lead.create",
    input,
    recordId: id,
    create: async (tx) => {
      let contact: { email: string | null; company: string | null } | null = null;
      if (input.contactId) {
        contact = await tx.contact.findFirst({
          where: { id: input.contactId, tenant: call.tenant },
          select: { email: true, company: true },
        });
        if (!contact) {
          throw new GantryError(
            "invalid_request",
            `contactId ${input.contactId} does not name a contact of this tenant.`,
            {
              details: [
                {
                  path: "/input/contactId",
                  message: "/input/contactId does not name a contact of this tenant",
                  code: "record_not_found",
                },
              ],
            },
          );
        }
      }
      const lead = await tx.lead.create({
        data: {
          id,
          tenant: call.tenant,
          name,
          contactId: input.contactId ?? null,
          email: input.email !== undefined ? normalizeEmail(input.email) : (contact?.email ?? null),
          company: input.company?.trim() ?? contact?.company ?? null,
          source: input.source ?? null,
          valueMinor,
          valueCurrency: input.value?.currency ?? null,
          notes: input.notes ?? null,
          status: "new",
          vertical: call.verticalId ?? null,
          createdAt: now,
          updatedAt: now,
        },
      });
      const created = await tx.leadEvent.create({
        data: {
          leadId: id,
          tenant: call.tenant,
          fromStatus: null,
          toStatus: "new",
          keyId: call.keyId || null,
          requestId: call.requestId || null,
          at: now,
        },
      });
      return leadOut(lead, [created]);
    },
    replay: async (recordId) => {
      const row = await ctx.db.lead.findFirst({
        where: { id: recordId, tenant: call.tenant },
        include: { history: { orderBy: { id: "asc" } } },
      });
      if (!row) throw notFound("lead", recordId);
      return leadOut(row, row.history);
    },
  });
  return result;
});
