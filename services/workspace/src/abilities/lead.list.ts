/**
 * @module workspace/abilities/lead.list
 * The caller's leads, newest first, optionally by status; `query` matches name, email, company and
 * source (case-insensitive substring). Items leave out the history (lead.get has it).
 */
import type { Handler } from "../workspace.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "../lib/pagination.ts";
import { leadOut } from "../lib/records.ts";

export interface LeadListInput {
  status?: string;
  query?: string;
  limit: number;
  cursor?: string;
}

export const handler: Handler<LeadListInput> = async (input, call, ws) => {
  const and: object[] = [afterCursor(input.cursor)];
  if (input.status) and.push({ status: input.status });
  if (input.query) {
    const q = input.query.trim();
    and.push({
      OR: ["name", "email", "company", "source"].map((f) => ({ [f]: { contains: q, mode: "insensitive" } })),
    });
  }
  const rows = await ws.db.lead.findMany({ where: { tenant: call.tenant, AND: and }, orderBy: NEWEST_FIRST, take: input.limit + 1 });
  return toPage(rows, input.limit, (r) => leadOut(r));
};
