/**
 * @module workspace/abilities/task.create
 * Creates an open task. `dueInHours` is turned into an absolute due time at creation; `vertical`
 * defaults to context.verticalId. An idempotencyKey makes retries return the same task.
 */
import type { Handler } from "../workspace.ts";
import { newId } from "../lib/ids.ts";
import { idempotentCreate } from "../lib/idempotency.ts";
import { taskOut } from "../lib/records.ts";
import { nonBlank, notFound } from "../lib/errors.ts";

export interface TaskCreateInput {
  title: string;
  assignedTo?: string;
  dueInHours?: number;
  priority: string;
  vertical?: string;
  idempotencyKey?: string;
}

export const handler: Handler<TaskCreateInput> = async (input, call, ws) => {
  const title = nonBlank(input.title, "/input/title");
  const id = newId("task");
  const now = ws.now();
  const { result } = await idempotentCreate({
    db: ws.db,
    call,
    ability: "task.create",
    input: input as unknown as Record<string, unknown>,
    recordId: id,
    create: async (tx) => {
      const task = await tx.task.create({
        data: {
          id,
          tenant: call.tenant,
          title,
          assignedTo: input.assignedTo?.trim() ?? null,
          dueAt: input.dueInHours === undefined ? null : new Date(now.getTime() + Math.round(input.dueInHours * 3_600_000)),
          priority: input.priority,
          status: "open",
          vertical: input.vertical ?? call.verticalId ?? null,
          createdAt: now,
          updatedAt: now,
        },
      });
      const created = await tx.taskEvent.create({
        data: { taskId: id, tenant: call.tenant, fromStatus: null, toStatus: "open", keyId: call.keyId || null, requestId: call.requestId || null, at: now },
      });
      return taskOut(task, now, [created]);
    },
    replay: async (recordId) => {
      const row = await ws.db.task.findFirst({ where: { id: recordId, tenant: call.tenant }, include: { history: { orderBy: { id: "asc" } } } });
      if (!row) throw notFound("task", recordId);
      return taskOut(row, ws.now(), row.history);
    },
  });
  return result;
};
