/**
 * @module connections/abilities/connection.list
 * The tenant's connections, newest first (kit keyset pagination), optionally of one service and in
 * one status. Connections of sub-tenants are not listed here: each tenant lists its own.
 */
import { afterCursor, NEWEST_FIRST, toPage } from "@gantry/kit";
import { ability } from "../context.ts";
import { connectionOut } from "../records.ts";

export default ability("connection.list", async (input, call, ctx) => {
  const rows = await ctx.db.connection.findMany({
    where: {
      tenant: call.tenant,
      ...(input.service ? { service: input.service } : {}),
      ...(input.status ? { status: input.status } : {}),
      AND: [afterCursor(input.cursor)],
    },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, connectionOut);
});
