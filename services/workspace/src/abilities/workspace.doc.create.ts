/**
 * @module workspace/abilities/workspace.doc.create
 * Creates a Markdown doc at version 1, open.
 */
import type { Handler } from "../workspace.ts";
import { newId } from "../lib/ids.ts";
import { idempotentCreate } from "../lib/idempotency.ts";
import { docOut } from "../lib/records.ts";
import { nonBlank, notFound } from "../lib/errors.ts";

export interface DocCreateInput {
  title: string;
  content?: string;
  idempotencyKey?: string;
}

export const handler: Handler<DocCreateInput> = async (input, call, ws) => {
  const title = nonBlank(input.title, "/input/title");
  const id = newId("doc");
  const now = ws.now();
  const { result } = await idempotentCreate({
    db: ws.db,
    call,
    ability: "workspace.doc.create",
    input: input as unknown as Record<string, unknown>,
    recordId: id,
    create: async (tx) =>
      docOut(
        await tx.doc.create({
          data: { id, tenant: call.tenant, title, content: input.content ?? "", version: 1, status: "open", vertical: call.verticalId ?? null, createdAt: now, updatedAt: now },
        }),
        { comments: [] },
      ),
    replay: async (recordId) => {
      const row = await ws.db.doc.findFirst({ where: { id: recordId, tenant: call.tenant }, include: { comments: { orderBy: { createdAt: "asc" } } } });
      if (!row) throw notFound("workspace doc", recordId);
      return docOut(row, { comments: row.comments });
    },
  });
  return result;
};
