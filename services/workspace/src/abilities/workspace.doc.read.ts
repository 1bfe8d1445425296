/**
 * @module workspace/abilities/workspace.doc.read
 * A doc with its content, version, status and comments (oldest first).
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { docOut } from "../records.ts";

export default ability("workspace.doc.read", async (input, call, ctx) => {
  const row = await ctx.db.doc.findFirst({
    where: { id: input.id, tenant: call.tenant },
    include: { comments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } },
  });
  if (!row) throw notFound("workspace doc", input.id);
  return docOut(row, row.comments);
});
