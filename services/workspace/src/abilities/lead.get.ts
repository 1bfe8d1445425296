/**
 * @module workspace/abilities/lead.get
 * One lead of the caller's tenant with its full status history (oldest first).
 */
import type { Handler } from "../workspace.ts";
import { leadOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";

export const handler: Handler<{ id: string }> = async (input, call, ws) => {
  const row = await ws.db.lead.findFirst({ where: { id: input.id, tenant: call.tenant }, include: { history: { orderBy: { id: "asc" } } } });
  if (!row) throw notFound("lead", input.id);
  return leadOut(row, row.history);
};
