/**
 * @module workspace/abilities/contact.list
 * The caller's contacts, newest first; `query` matches name, email, company and phone
 * (case-insensitive substring; digits of a phone query also match the stored E.164 form).
 */
import { ability } from "../context.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "@gantry/kit";
import { contactOut } from "../records.ts";

export default ability("contact.list", async (input, call, ctx) => {
  const and: object[] = [afterCursor(input.cursor)];
  if (input.query) {
    const q = input.query.trim();
    const or: object[] = [
      { name: { contains: q, mode: "insensitive" } },
      { email: { contains: q, mode: "insensitive" } },
      { company: { contains: q, mode: "insensitive" } },
      { phone: { contains: q } },
    ];
    const digits = q.replace(/[\s().+-]/g, "");
    if (/^[0-9]{3,}$/.test(digits) && digits !== q) or.push({ phone: { contains: digits } });
    and.push({ OR: or });
  }
  const rows = await ctx.db.contact.findMany({
    where: { tenant: call.tenant, AND: and },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, contactOut);
});
