/**
 * @module workspace/abilities/task.list
 * The caller's tasks, newest first, filtered by status, assignee (exact), priority and overdue
 * (overdue = past its due time and neither done nor cancelled).
 */
import { ability } from "../context.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "@gantry/kit";
import { taskItemOut } from "../records.ts";

export default ability("task.list", async (input, call, ctx) => {
  const now = ctx.now();
  const and: object[] = [afterCursor(input.cursor)];
  if (input.status) and.push({ status: input.status });
  if (input.assignedTo) and.push({ assignedTo: input.assignedTo });
  if (input.priority) and.push({ priority: input.priority });
  const overdue = { dueAt: { lt: now }, status: { notIn: ["done", "cancelled"] } };
  if (input.overdue === true) and.push(overdue);
  // Spelled out rather than NOT(overdue): NOT over a NULL due time is NULL in SQL, not true.
  if (input.overdue === false)
    and.push({ OR: [{ dueAt: null }, { dueAt: { gte: now } }, { status: { in: ["done", "cancelled"] } }] });
  const rows = await ctx.db.task.findMany({
    where: { tenant: call.tenant, AND: and },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, (r) => taskItemOut(r, now));
});
