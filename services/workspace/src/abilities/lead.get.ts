/**
 * @module workspace/abilities/lead.get
 * One lead of the caller's tenant with its full status history (oldest first).
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { leadOut } from "../records.ts";

export default ability("lead.get", async (input, call, ctx) => {
  const row = await ctx.db.lead.findFirst({
    where: { id: input.id, tenant: call.tenant },
    include: { history: { orderBy: { id: "asc" } } },
  });
  if (!row) throw notFound("lead", input.id);
  return leadOut(row, row.history);
});
