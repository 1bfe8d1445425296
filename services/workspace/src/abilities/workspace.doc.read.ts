/**
 * @module workspace/abilities/workspace.doc.read
 * A doc with its content, version, status and comments (oldest first).
 */
import type { Handler } from "../workspace.ts";
import { docOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";

export const handler: Handler<{ id: string }> = async (input, call, ws) => {
  const row = await ws.db.doc.findFirst({ where: { id: input.id, tenant: call.tenant }, include: { comments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } } });
  if (!row) throw notFound("workspace doc", input.id);
  return docOut(row, { comments: row.comments });
};
