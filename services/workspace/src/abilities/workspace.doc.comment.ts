/**
 * @module workspace/abilities/workspace.doc.comment
 * Adds a comment to an open doc. An `anchor` must be an exact passage of the current content. The
 * doc row is locked (FOR SHARE) while the comment is written, so a comment never lands on a doc
 * that a concurrent close has just made read-only.
 */
import { notFound } from "@gantry/kit";
import { Prisma } from "../generated/prisma/client.ts";
import { ability } from "../context.ts";
import { newId } from "../ids.ts";
import { commentOut } from "../records.ts";
import { invalidField } from "../errors.ts";
import { closedConflict } from "../docs.ts";

export default ability("workspace.doc.comment", async (input, call, ctx) =>
  ctx.db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ status: string; version: number; content: string }[]>(
      Prisma.sql`SELECT status, version, content FROM "workspace"."docs" WHERE id = ${input.id} AND tenant = ${call.tenant} FOR SHARE`,
    );
    if (rows.length === 0) throw notFound("workspace doc", input.id);
    const doc = rows[0];
    if (doc.status === "closed") throw closedConflict(input.id);
    if (input.anchor !== undefined && !doc.content.includes(input.anchor)) {
      throw invalidField("/input/anchor", "is not a passage of the doc's current content", "anchor_not_found");
    }
    const comment = await tx.docComment.create({
      data: {
        id: newId("comment"),
        docId: input.id,
        tenant: call.tenant,
        text: input.text,
        anchor: input.anchor ?? null,
        version: doc.version,
        keyId: call.keyId || null,
        createdAt: ctx.now(),
      },
    });
    return commentOut(comment);
  }),
);
