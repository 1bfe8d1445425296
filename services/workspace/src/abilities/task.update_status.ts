/**
 * @module workspace/abilities/task.update_status
 * Changes a task's status (lib/transitions.ts): done and cancelled only reopen to open. The row is
 * locked while the move is checked and written; each move is appended to the task's history.
 */
import { Prisma } from "../generated/prisma/client.ts";
import type { Handler } from "../workspace.ts";
import { taskOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";
import { assertTransition } from "../lib/transitions.ts";

export interface TaskUpdateStatusInput {
  id: string;
  status: string;
  note?: string;
}

export const handler: Handler<TaskUpdateStatusInput> = async (input, call, ws) =>
  ws.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ status: string }[]>(
      Prisma.sql`SELECT status FROM "workspace"."tasks" WHERE id = ${input.id} AND tenant = ${call.tenant} FOR UPDATE`,
    );
    if (locked.length === 0) throw notFound("task", input.id);
    const from = locked[0].status;
    assertTransition("task", input.id, from, input.status);
    const now = ws.now();
    const closing = input.status === "done" || input.status === "cancelled";
    await tx.task.update({ where: { id: input.id }, data: { status: input.status, updatedAt: now, closedAt: closing ? now : null } });
    await tx.taskEvent.create({
      data: { taskId: input.id, tenant: call.tenant, fromStatus: from, toStatus: input.status, note: input.note ?? null, keyId: call.keyId || null, requestId: call.requestId || null, at: now },
    });
    const row = await tx.task.findFirstOrThrow({ where: { id: input.id, tenant: call.tenant }, include: { history: { orderBy: { id: "asc" } } } });
    return taskOut(row, now, row.history);
  });
