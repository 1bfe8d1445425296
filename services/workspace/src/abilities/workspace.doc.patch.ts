/**
 * @module workspace/abilities/workspace.doc.patch
 * Optimistic concurrency: the edit applies only if the doc is still at `baseVersion` and open. The
 * write is one conditional UPDATE (version = baseVersion AND status = open), so of two patches on
 * the same version exactly one wins and the other gets 409 with the current version.
 */
import { notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { docContentOut } from "../records.ts";
import { MAX_DOC_CHARS, applyOps, closedConflict, staleConflict, tooLarge } from "../docs.ts";

export default ability("workspace.doc.patch", async (input, call, ctx) => {
  const where = { id: input.id, tenant: call.tenant };
  const doc = await ctx.db.doc.findFirst({ where });
  if (!doc) throw notFound("workspace doc", input.id);
  if (doc.status === "closed") throw closedConflict(doc.id);
  if (doc.version !== input.baseVersion) throw staleConflict(doc.id, input.baseVersion, doc.version);
  const content = "content" in input ? input.content : applyOps(doc.content, input.ops);
  if (content.length > MAX_DOC_CHARS) throw tooLarge();
  const res = await ctx.db.doc.updateMany({
    where: { ...where, version: input.baseVersion, status: "open" },
    data: { content, version: { increment: 1 }, updatedAt: ctx.now() },
  });
  if (res.count === 0) {
    const now = await ctx.db.doc.findFirst({ where });
    if (!now) throw notFound("workspace doc", input.id);
    if (now.status === "closed") throw closedConflict(now.id);
    throw staleConflict(now.id, input.baseVersion, now.version);
  }
  const updated = await ctx.db.doc.findFirstOrThrow({ where });
  return docContentOut(updated);
});
