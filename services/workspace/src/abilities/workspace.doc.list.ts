/**
 * @module workspace/abilities/workspace.doc.list
 * The caller's docs, newest first, by status; `query` matches title and content (case-insensitive).
 * Items carry no content (only its length); workspace.doc.read has it.
 */
import { ability } from "../context.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "@gantry/kit";
import { docItemOut } from "../records.ts";

export default ability("workspace.doc.list", async (input, call, ctx) => {
  const and: object[] = [afterCursor(input.cursor)];
  if (input.status) and.push({ status: input.status });
  if (input.query) {
    const q = input.query.trim();
    and.push({
      OR: [{ title: { contains: q, mode: "insensitive" } }, { content: { contains: q, mode: "insensitive" } }],
    });
  }
  const rows = await ctx.db.doc.findMany({
    where: { tenant: call.tenant, AND: and },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, docItemOut);
});
