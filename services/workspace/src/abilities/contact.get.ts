/**
 * @module workspace/abilities/contact.get
 * One contact of the caller's tenant; another tenant's id answers 404 like a missing one.
 */
import type { Handler } from "../workspace.ts";
import { contactOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";

export const handler: Handler<{ id: string }> = async (input, call, ws) => {
  const row = await ws.db.contact.findFirst({ where: { id: input.id, tenant: call.tenant } });
  if (!row) throw notFound("contact", input.id);
  return contactOut(row);
};
