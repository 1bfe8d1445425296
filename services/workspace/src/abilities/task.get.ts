/**
 * @module workspace/abilities/task.get
 * One task of the caller's tenant with its status history (oldest first) and `overdue`.
 */
import type { Handler } from "../workspace.ts";
import { taskOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";

export const handler: Handler<{ id: string }> = async (input, call, ws) => {
  const row = await ws.db.task.findFirst({ where: { id: input.id, tenant: call.tenant }, include: { history: { orderBy: { id: "asc" } } } });
  if (!row) throw notFound("task", input.id);
  return taskOut(row, ws.now(), row.history);
};
