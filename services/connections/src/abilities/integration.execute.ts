/**
 * @module connections/abilities/integration.execute
 * Runs exactly the tool version `toolId` names (`toolkit.tool@N`; an unknown version is 404, never
 * the latest instead) through an owned or shared connection: src/execute.ts.
 */
import { ability } from "../context.ts";
import { executeTool } from "../execute.ts";
import { resolveTool } from "../toolkits.ts";

export default ability("integration.execute", async (input, call, ctx) =>
  executeTool(ctx, call, {
    ability: "integration.execute",
    input,
    tool: resolveTool(ctx.toolkits, input.toolId),
    connectionId: input.connectionId,
    arguments: input.arguments,
  }),
);
