/**
 * @module workspace/abilities/task.create
 * Creates an open task. `dueInHours` is turned into an absolute due time at creation; `vertical`
 * defaults to context.verticalId. An idempotencyKey makes retries return the same task.
 */
import { idempotentCreate, notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { taskOut } from "../records.ts";
import { nonBlank } from "../errors.ts";

export default ability("task.create", async (input, call, ctx) => {
  const title = nonBlank(input.title, "/input/title");
  const dueInHours = input.dueInHours;
  const id = newId("task");
  const now = ctx.now();
  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "task.create",
    input,
    recordId: id,
    create: async (tx) => {
      const task = await tx.task.create({
        data: {
          id,
          tenant: call.tenant,
          title,
          assignedTo: input.assignedTo?.trim() ?? null,
          dueAt: dueInHours === undefined ? null : new Date(now.getTime() + Math.round(dueInHours * 3_600_000)),
          priority: input.priority,
          status: "open",
          vertical: input.vertical ?? call.verticalId ?? null,
          createdAt: now,
          updatedAt: now,
        },
      });
      const created = await tx.taskEvent.create({
        data: {
          taskId: id,
          tenant: call.tenant,
          fromStatus: null,
          toStatus: "open",
          keyId: call.keyId || null,
          requestId: call.requestId || null,
          at: now,
        },
      });
      return taskOut(task, now, [created]);
    },
    replay: async (recordId) => {
      const row = await ctx.db.task.findFirst({
        where: { id: recordId, tenant: call.tenant },
        include: { history: { orderBy: { id: "asc" } } },
      });
      if (!row) throw notFound("task", recordId);
      return taskOut(row, ctx.now(), row.history);
    },
  });
  return result;
});
