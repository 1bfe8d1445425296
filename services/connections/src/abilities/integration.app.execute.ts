/**
 * @module connections/abilities/integration.app.execute
 * Runs a tool by slug (`GITHUB_CREATE_ISSUE`: its latest version; a version-pinned id
 * `toolkit.tool@N` runs exactly that version) on an account: `connectionId`, or when it is omitted
 * the caller's only connected account of the tool's toolkit (several: the caller must choose).
 * The run itself is src/execute.ts.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { executeTool } from "../execute.ts";
import { invalidField } from "../records.ts";
import { resolveTool, type Tool } from "../toolkits.ts";
import type { Context } from "../context.ts";

function toolBySlug(ctx: Context, slug: string): Tool {
  if (slug.includes("@")) return resolveTool(ctx.toolkits, slug, "/input/tool");
  for (const toolkit of ctx.toolkits.toolkits.values())
    for (const tool of toolkit.latest.values()) if (tool.slug === slug) return tool;
  // A directory tool's slug is `toolkit.tool` (its id without the version).
  const dot = slug.indexOf(".");
  if (dot > 0 && ctx.toolkits.directory && !ctx.toolkits.toolkits.has(slug.slice(0, dot))) {
    const tool = ctx.toolkits.directory.toolkit(slug.slice(0, dot))?.latest.get(slug.slice(dot + 1));
    if (tool) return tool;
  }
  throw new GantryError("not_found", `No tool has the slug ${slug}.`, {
    details: [
      {
        path: "/input/tool",
        message: `/input/tool "${slug}" is not a tool slug; list them with integration.app.tools`,
        code: "record_not_found",
      },
    ],
  });
}

export default ability("integration.app.execute", async (input, call, ctx) => {
  const tool = toolBySlug(ctx, input.tool);
  let connectionId = input.connectionId;
  if (connectionId === undefined) {
    const accounts = await ctx.db.connection.findMany({
      where: { tenant: call.tenant, principalId: call.keyId, service: tool.toolkit, status: "connected" },
      select: { id: true },
      orderBy: { createdAt: "desc" },
      take: 10,
    });
    if (accounts.length === 0)
      throw new GantryError("not_found", `This key has no connected ${tool.toolkit} account.`, {
        reason: `Connect one with integration.app.connect {"toolkit": "${tool.toolkit}"}, or pass the connectionId of an account shared with you.`,
        details: [
          {
            path: "/input/connectionId",
            message: `/input/connectionId: no connected ${tool.toolkit} account`,
            code: "record_not_found",
          },
        ],
      });
    if (accounts.length > 1)
      throw invalidField(
        "/input/connectionId",
        `is required: this key has several connected ${tool.toolkit} accounts (${accounts.map((a) => a.id).join(", ")}); name one`,
        "required",
      );
    connectionId = accounts[0]?.id as string;
  }
  return executeTool(ctx, call, {
    ability: "integration.app.execute",
    input,
    tool,
    connectionId,
    arguments: input.arguments,
  });
});
