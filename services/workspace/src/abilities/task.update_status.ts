/**
 * @module workspace/abilities/task.update_status
 * Changes a task's status (transitions.ts): done and cancelled only reopen to open. The row is
 * locked while the move is checked and written; each move is appended to the task's history.
 */
import { notFound } from "@gantry/kit";
import { Prisma } from "../generated/prisma/client.ts";
import { ability } from "../context.ts";
import { taskOut } from "../records.ts";
import { assertTransition } from "../transitions.ts";

export default ability("task.update_status", async (input, call, ctx) =>
  ctx.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ status: string }[]>(
      Prisma.sql`SELECT status FROM "workspace"."tasks" WHERE id = ${input.id} AND tenant = ${call.tenant} FOR UPDATE`,
    );
    if (locked.length === 0) throw notFound("task", input.id);
    const from = locked[0].status;
    assertTransition("task", input.id, from, input.status);
    const now = ctx.now();
    const closing = input.status === "done" || input.status === "cancelled";
    await tx.task.update({
      where: { id: input.id },
      data: { status: input.status, updatedAt: now, closedAt: closing ? now : null },
    });
    await tx.taskEvent.create({
      data: {
        taskId: input.id,
        tenant: call.tenant,
        fromStatus: from,
        toStatus: input.status,
        note: input.note ?? null,
        keyId: call.keyId || null,
        requestId: call.requestId || null,
        at: now,
      },
    });
    const row = await tx.task.findFirstOrThrow({
      where: { id: input.id, tenant: call.tenant },
      include: { history: { orderBy: { id: "asc" } } },
    });
    return taskOut(row, now, row.history);
  }),
);
