/**
 * @module workspace/abilities/lead.update_status
 * Moves a lead along its state machine (transitions.ts). The row is locked while the move is
 * checked and written, so two concurrent moves cannot both pass the check; every move is appended to
 * the lead's history with the reason, the key and the request id.
 */
import { notFound } from "@gantry/kit";
import { Prisma } from "../generated/prisma/client.ts";
import { ability } from "../context.ts";
import { leadOut } from "../records.ts";
import { assertTransition } from "../transitions.ts";

export default ability("lead.update_status", async (input, call, ctx) =>
  ctx.db.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ status: string }[]>(
      Prisma.sql`SELECT status FROM "workspace"."leads" WHERE id = ${input.id} AND tenant = ${call.tenant} FOR UPDATE`,
    );
    if (locked.length === 0) throw notFound("lead", input.id);
    const from = locked[0].status;
    assertTransition("lead", input.id, from, input.status);
    const now = ctx.now();
    const final = input.status === "won" || input.status === "lost";
    await tx.lead.update({
      where: { id: input.id },
      data: { status: input.status, updatedAt: now, ...(final ? { closedAt: now } : {}) },
    });
    await tx.leadEvent.create({
      data: {
        leadId: input.id,
        tenant: call.tenant,
        fromStatus: from,
        toStatus: input.status,
        reason: input.reason ?? null,
        keyId: call.keyId || null,
        requestId: call.requestId || null,
        at: now,
      },
    });
    const row = await tx.lead.findFirstOrThrow({
      where: { id: input.id, tenant: call.tenant },
      include: { history: { orderBy: { id: "asc" } } },
    });
    return leadOut(row, row.history);
  }),
);
