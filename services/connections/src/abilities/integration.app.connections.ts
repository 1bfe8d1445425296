/**
 * @module connections/abilities/integration.app.connections
 * The calling principal's integration-app accounts (`kind: "app"`, any status unless filtered),
 * newest first, with the kit's keyset pagination. Accounts shared with the principal are listed by
 * integration.search `connections`.
 */
import { afterCursor, NEWEST_FIRST, toPage } from "@gantry/kit";
import { ability } from "../context.ts";
import { connectionOut } from "../records.ts";

export default ability("integration.app.connections", async (input, call, ctx) => {
  const rows = await ctx.db.connection.findMany({
    where: {
      tenant: call.tenant,
      kind: "app",
      principalId: call.keyId,
      ...(input.toolkit ? { service: input.toolkit } : {}),
      ...(input.status ? { status: input.status } : {}),
      AND: [afterCursor(input.cursor)],
    },
    orderBy: NEWEST_FIRST,
    take: input.limit + 1,
  });
  return toPage(rows, input.limit, connectionOut);
});
