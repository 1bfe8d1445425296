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
 * first: by words (src/tool-search.ts), fused with the term vectors for a directory toolkit
 * (src/directory-search.ts `within`: also the few tools nearest by meaning that share no word), then
 * re-ranked by the sentence model itself (src/tool-meaning.ts, unless CONNECTIONS_TOOL_MEANING is
 * off or the model cannot load); without, every one by name with `score` null.
 */
import type { CallContext } from "@gantry/kit";
import { connectionById } from "../connections.ts";
import { ability, type Context } from "../context.ts";
import { connectionNotFound, connectionOut } from "../records.ts";
import { authorizeUse, shareOut, shareStatus, sharesWith } from "../shares.ts";
import { rankConnectionTools } from "../tool-meaning.ts";
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
  if (!input.query) {
    const named = [...tools].sort((a, b) => a.name.localeCompare(b.name) || a.version - b.version);
    return {
      action: "tools" as const,
      connectionId: connection.id,
      toolkit: connection.service,
      tools: named.map((t) => ({ ...toolOut(t), score: null })),
    };
  }
  const directory = ctx.toolkits.directory;
  const ranked = await rankConnectionTools({
    toolkit: connection.service,
    query: input.query,
    tools,
    directory: directory && !ctx.toolkits.toolkits.has(connection.service) ? directory : null,
    meaning: ctx.meaning,
    warn: (message) => ctx.log.warn(message),
  });
  // A grantee's shares may list two versions of one tool: both are answered, ranked together.
  const byName = Map.groupBy(tools, (t) => t.name);
  return {
    action: "tools" as const,
    connectionId: connection.id,
    toolkit: connection.service,
    tools: ranked.flatMap((r) =>
      (byName.get(r.name) ?? []).sort((a, b) => a.version - b.version).map((t) => ({ ...toolOut(t), score: r.score })),
    ),
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
