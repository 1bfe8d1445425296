/**
 * @module workspace/abilities/workspace.doc.create
 * Creates a Markdown doc at version 1, open.
 */
import { idempotentCreate, notFound } from "@gantry/kit";
import { ability } from "../context.ts";
import { SCHEMA } from "../db.ts";
import { newId } from "../ids.ts";
import { docOut } from "../records.ts";
import { nonBlank } from "../errors.ts";

export default ability("workspace.doc.create", async (input, call, ctx) => {
  const title = nonBlank(input.title, "/input/title");
  const id = newId("doc");
  const now = ctx.now();
  const { result } = await idempotentCreate({
    db: ctx.db,
    schema: SCHEMA,
    call,
    ability: "workspace.doc.create",
    input,
    recordId: id,
    create: async (tx) =>
      docOut(
        await tx.doc.create({
          data: {
            id,
            tenant: call.tenant,
            title,
            content: input.content ?? "",
            version: 1,
            status: "open",
            vertical: call.verticalId ?? null,
            createdAt: now,
            updatedAt: now,
          },
        }),
        [],
      ),
    replay: async (recordId) => {
      const row = await ctx.db.doc.findFirst({
        where: { id: recordId, tenant: call.tenant },
        include: { comments: { orderBy: { createdAt: "asc" } } },
      });
      if (!row) throw notFound("workspace doc", recordId);
      return docOut(row, row.comments);
    },
  });
  return result;
});
