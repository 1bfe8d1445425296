/**
 * @module connections/abilities/integration.search
 * `connections`: the connections the calling principal (API key id) may execute through: its own
 * (not revoked), then those shared with it by an active share (not expired, not revoked, on a
 * connection that is not revoked), each with `access` and, for shared ones, the share (which tools,
 * until when). `tools` (the default) discovers tools on a connection: it needs the tool registry,
 * which is not built yet, and answers 501.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { connectionOut } from "../records.ts";
import { shareOut, shareStatus, sharesWith } from "../shares.ts";

export default ability("integration.search", async (input, call, ctx) => {
  // The catalogue states this input as a raw oneOf (validated by the kit); only `action` is read here.
  if ((input as { action?: string }).action !== "connections")
    throw new GantryError("not_implemented", "integration.search `tools` is declared but not wired yet.", {
      reason: "Tool discovery needs the toolkit registry (integration.app.toolkits), which is not built yet.",
    });
  const nowMs = ctx.now();
  const owned = await ctx.db.connection.findMany({
    where: { tenant: call.tenant, principalId: call.keyId, status: { not: "revoked" } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  const active = (await sharesWith(ctx, call.tenant, call.keyId)).filter((s) => shareStatus(s, nowMs) === "active");
  const shared = active.length
    ? await ctx.db.connection.findMany({
        where: {
          tenant: call.tenant,
          id: { in: [...new Set(active.map((s) => s.connectionId))] },
          status: { not: "revoked" },
        },
      })
    : [];
  const byId = new Map(shared.map((c) => [c.id, c]));
  return {
    action: "connections" as const,
    connections: [
      ...owned.map((c) => ({ ...connectionOut(c), access: "owner" as const, share: null })),
      ...active.flatMap((s) => {
        const c = byId.get(s.connectionId);
        return c && c.principalId !== call.keyId
          ? [{ ...connectionOut(c), access: "shared" as const, share: shareOut(s, nowMs) }]
          : [];
      }),
    ],
  };
});
