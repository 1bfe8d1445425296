/**
 * @module workspace/abilities/contact.update
 * Partial update: only the given fields change; `null` clears phone, email or company; metadata is
 * merged key by key and a key set to `null` is removed. The row is locked for the read-modify-write
 * so concurrent updates of different metadata keys both survive.
 */
import { notFound } from "@gantry/kit";
import { Prisma } from "../generated/prisma/client.ts";
import { ability } from "../context.ts";
import { contactOut } from "../records.ts";
import { normalizeEmail, phoneOrThrow } from "../contacts.ts";
import { invalidField, nonBlank } from "../errors.ts";

export default ability("contact.update", async (input, call, ctx) => {
  const phone = typeof input.phone === "string" ? phoneOrThrow(input.phone) : input.phone;
  return ctx.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>(
      Prisma.sql`SELECT id FROM "workspace"."contacts" WHERE id = ${input.id} AND tenant = ${call.tenant} FOR UPDATE`,
    );
    if (locked.length === 0) throw notFound("contact", input.id);
    const current = await tx.contact.findFirstOrThrow({ where: { id: input.id, tenant: call.tenant } });
    const data: Record<string, unknown> = { updatedAt: ctx.now() };
    if (input.name !== undefined) data.name = nonBlank(input.name, "/input/name");
    if (phone !== undefined) data.phone = phone;
    if (input.email !== undefined) data.email = input.email === null ? null : normalizeEmail(input.email);
    if (input.company !== undefined) data.company = input.company === null ? null : input.company.trim();
    if (input.metadata !== undefined) {
      const merged: Record<string, unknown> = { ...((current.metadata ?? {}) as Record<string, unknown>) };
      for (const [k, v] of Object.entries(input.metadata)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      if (Object.keys(merged).length > 50) {
        throw invalidField(
          "/input/metadata",
          "would leave the contact with more than 50 metadata keys",
          "too_many_keys",
        );
      }
      data.metadata = merged;
    }
    return contactOut(await tx.contact.update({ where: { id: current.id }, data }));
  });
});
