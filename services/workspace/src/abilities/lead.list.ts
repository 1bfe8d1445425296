/**
 * @module workspace/abilities/lead.list
 * The caller's leads, newest first, optionally by status; `query` matches name, email, company and
 * source (case-insensitive substring). Items leave out the history (lead.get has it).
 */
import { ability } from "../context.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "@gantry/kit";
import { leadItemOut } from "../records.ts";

export default ability("lead.list", async (input, call, ctx) => {
  const and: object[] = [afterCursor(input.cursor)];
  if (input.status) and.push({ status: input.status });
  if (input.query) {
    const q = input.query.trim();
    and.push({
      OR: ["name", "email", "company", "source"].map((f) => ({ [f]: { contains: q, mode: "insensitive" } })),
    });
  }
  const rows = await ctx.db.lead.findMany({
    where: { tenant: call.tenant, AND: and },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, leadItemOut);
});
