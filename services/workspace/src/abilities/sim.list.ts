/**
 * @module workspace/abilities/sim.list
 * The caller's simulations (newest first), each with its sandbox sub-tenant and record counts.
 * Simulations made inside a sub-tenant belong to that sub-tenant.
 */
import { ability } from "../context.ts";
import { NEWEST_FIRST, afterCursor, toPage } from "@gantry/kit";
import { simOut } from "../records.ts";

export default ability("sim.list", async (input, call, ctx) => {
  const and: object[] = [afterCursor(input.cursor)];
  if (input.vertical) and.push({ vertical: input.vertical });
  const rows = await ctx.db.simulation.findMany({
    where: { tenant: call.tenant, AND: and },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, simOut);
});
