/**
 * @module workspace/abilities/workspace.doc.patch
 * Optimistic concurrency: the edit applies only if the doc is still at `baseVersion` and open. The
 * write is one conditional UPDATE (version = baseVersion AND status = open), so of two patches on
 * the same version exactly one wins and the other gets 409 with the current version.
 */
import type { Handler } from "../workspace.ts";
import { docOut } from "../lib/records.ts";
import { notFound } from "../lib/errors.ts";
import { MAX_DOC_CHARS, applyOps, closedConflict, staleConflict, tooLarge, type DocOp } from "../lib/docs.ts";

export interface DocPatchInput {
  id: string;
  baseVersion: number;
  content?: string;
  ops?: DocOp[];
}

export const handler: Handler<DocPatchInput> = async (input, call, ws) => {
  const where = { id: input.id, tenant: call.tenant };
  const doc = await ws.db.doc.findFirst({ where });
  if (!doc) throw notFound("workspace doc", input.id);
  if (doc.status === "closed") throw closedConflict(doc.id);
  if (doc.version !== input.baseVersion) throw staleConflict(doc.id, input.baseVersion, doc.version);
  const content = input.content !== undefined ? input.content : applyOps(doc.content, input.ops ?? []);
  if (content.length > MAX_DOC_CHARS) throw tooLarge();
  const res = await ws.db.doc.updateMany({
    where: { ...where, version: input.baseVersion, status: "open" },
    data: { content, version: { increment: 1 }, updatedAt: ws.now() },
  });
  if (res.count === 0) {
    const now = await ws.db.doc.findFirst({ where });
    if (!now) throw notFound("workspace doc", input.id);
    if (now.status === "closed") throw closedConflict(now.id);
    throw staleConflict(now.id, input.baseVersion, now.version);
  }
  const updated = await ws.db.doc.findFirstOrThrow({ where });
  return docOut(updated);
};
