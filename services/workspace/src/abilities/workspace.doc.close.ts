/**
 * @module workspace/abilities/workspace.doc.close
 * Closes a doc: it becomes read-only (patch and comment answer 409). Closing a closed doc returns
 * it unchanged, so a retried close is harmless.
 */
import type { Handler } from "../workspace.ts";
import { docOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";

export const handler: Handler<{ id: string }> = async (input, call, ws) => {
  const where = { id: input.id, tenant: call.tenant };
  const now = ws.now();
  await ws.db.doc.updateMany({ where: { ...where, status: "open" }, data: { status: "closed", closedAt: now, updatedAt: now } });
  const row = await ws.db.doc.findFirst({ where, include: { comments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } } });
  if (!row) throw notFound("workspace doc", input.id);
  return docOut(row, { comments: row.comments });
};
