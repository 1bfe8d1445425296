/**
 * @module connections/abilities/integration.search
 * `connections`: the connections the calling principal (API key id) may execute through: its own
 * (not revoked), then those shared with it by an active share (not expired, not revoked, on a
 * connection that is not revoked), each with `access` and, for shared ones, the share (which tools,
 * until when).
 *
 * `tools` (the default): the tools the principal may run on one connection, whose toolkit is the
 * connection's service: for the owner the latest version of every tool of the toolkit; for a grantee
 * exactly the versions its active shares list (a principal without one is refused like an execution:
 * 403 naming why, 404 for another tenant's connection). With `query`, only tools that match, best
 * first: by words (src/tool-search.ts), fused with meaning for a directory toolkit (src/directory-search.ts
 * `within`: also the few tools nearest by meaning that share no word); without, every one by name
 * with `score` null.
 */
import type { CallContext } from "@gantry/kit";
import { connectionById } from "../connections.ts";
import { ability, type Context } from "../context.ts";
import { connectionNotFound, connectionOut } from "../records.ts";
import { authorizeUse, shareOut, shareStatus, sharesWith } from "../shares.ts";
import { queryWords, toolScore } from "../tool-search.ts";
import { resolveTool, type Tool, toolOut } from "../toolkits.ts";

/** The `tools` variant (the catalogue states the input as a raw oneOf, so it is not typed from it). */
interface ToolsInput {
  action?: "tools";
  connectionId: string;
  query?: string;
}

async function searchTools(ctx: Context, call: CallContext, input: ToolsInput) {
  const connection = await connectionById(ctx, call.tenant, input.connectionId);
  if (!connection) throw connectionNotFound(input.connectionId);
  let tools: Tool[];
  if (connection.principalId === call.keyId) {
    const toolkit =
      ctx.toolkits.toolkits.get(connection.service) ?? ctx.toolkits.directory?.toolkit(connection.service);
    tools = [...(toolkit?.latest.values() ?? [])];
  } else {
    const nowMs = ctx.now();
    const active = (await sharesWith(ctx, call.tenant, call.keyId)).filter(
      (s) => s.connectionId === connection.id && shareStatus(s, nowMs) === "active",
    );
    // No active share: the same refusal (and wording) an execution would get.
    if (active.length === 0)
      await authorizeUse(ctx, {
        tenant: call.tenant,
        principalId: call.keyId,
        connectionId: connection.id,
        toolId: "",
      });
    const ids = [...new Set(active.flatMap((s) => s.toolIds))];
    tools = ids.flatMap((id) => {
      try {
        return [resolveTool(ctx.toolkits, id)];
      } catch {
        return []; // a version the registry no longer ships cannot run either
      }
    });
  }
  const query = input.query ? queryWords(input.query) : [];
  const directory = ctx.toolkits.directory;
  if (input.query && directory && !ctx.toolkits.toolkits.has(connection.service)) {
    const byName = new Map(tools.map((t) => [t.name, t]));
    const ranked = directory.rankWithin(
      connection.service,
      input.query,
      new Map(tools.map((t) => [t.name, toolScore(t, query)])),
    );
    if (ranked.warning) ctx.log.warn(ranked.warning);
    return {
      action: "tools" as const,
      connectionId: connection.id,
      toolkit: connection.service,
      tools: ranked.tools.flatMap((r) => {
        const t = byName.get(r.name);
        return t ? [{ ...toolOut(t), score: r.score }] : [];
      }),
    };
  }
  const ranked = tools
    .map((t) => ({ tool: t, score: input.query ? toolScore(t, query) : null }))
    .filter((r) => r.score === null || r.score > 0)
    .sort(
      (a, b) =>
        (b.score ?? 0) - (a.score ?? 0) || a.tool.name.localeCompare(b.tool.name) || a.tool.version - b.tool.version,
    );
  return {
    action: "tools" as const,
    connectionId: connection.id,
    toolkit: connection.service,
    tools: ranked.map((r) => ({ ...toolOut(r.tool), score: r.score })),
  };
}

export default ability("integration.search", async (input, call, ctx) => {
  // The catalogue states this input as a raw oneOf (validated by the kit).
  if ((input as { action?: string }).action !== "connections")
    return searchTools(ctx, call, input as unknown as ToolsInput);
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
