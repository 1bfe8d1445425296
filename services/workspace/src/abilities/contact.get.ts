/**
 * @module workspace/abilities/contact.get
 * One contact of the caller's tenant; another tenant's id answers 404 like a missing one.
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { contactOut } from "../records.ts";
import { contactById } from "../reads.ts";

export default ability("contact.get", async (input, call, ctx) => {
  const row = await contactById(ctx.pool, input.id, call.tenant);
  if (!row) throw notFound("contact", input.id);
  return contactOut(row);
});
