/**
 * @module workspace/abilities/sim.list
 * The caller's simulations (newest first), each with its sandbox sub-tenant and record counts.
 * Simulations made inside a sub-tenant belong to that sub-tenant.
 */
import type { Handler } from "../workspace.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "../lib/pagination.ts";
import { simOut } from "../lib/records.ts";

export const handler: Handler<{ vertical?: string; limit: number; cursor?: string }> = async (input, call, ws) => {
  const and: object[] = [afterCursor(input.cursor)];
  if (input.vertical) and.push({ vertical: input.vertical });
  const rows = await ws.db.simulation.findMany({ where: { tenant: call.tenant, AND: and }, orderBy: NEWEST_FIRST, take: input.limit + 1 });
  return toPage(rows, input.limit, simOut);
};
