/**
 * @module workspace/abilities/workspace.doc.close
 * Closes a doc: it becomes read-only (patch and comment answer 409). Closing a closed doc returns
 * it unchanged, so a retried close is harmless.
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { docOut } from "../records.ts";

export default ability("workspace.doc.close", async (input, call, ctx) => {
  const where = { id: input.id, tenant: call.tenant };
  const now = ctx.now();
  await ctx.db.doc.updateMany({
    where: { ...where, status: "open" },
    data: { status: "closed", closedAt: now, updatedAt: now },
  });
  const row = await ctx.db.doc.findFirst({
    where,
    include: { comments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  if (!row) throw notFound("workspace doc", input.id);
  return docOut(row, row.comments);
});
