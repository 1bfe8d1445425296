/**
 * @module workspace/abilities/task.get
 * One task of the caller's tenant with its status history (oldest first) and `overdue`.
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { taskOut } from "../records.ts";

export default ability("task.get", async (input, call, ctx) => {
  const row = await ctx.db.task.findFirst({
    where: { id: input.id, tenant: call.tenant },
    include: { history: { orderBy: { id: "asc" } } },
  });
  if (!row) throw notFound("task", input.id);
  return taskOut(row, ctx.now(), row.history);
});
