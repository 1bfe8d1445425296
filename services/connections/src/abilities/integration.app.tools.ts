/**
 * @module connections/abilities/integration.app.tools
 * The tools of one toolkit (latest version of each, by name) with their input schemas, each with its
 * version-pinned id (`toolkit.tool@N`). An unknown toolkit is 404 naming `/input/toolkit`. Older
 * versions are not listed here but stay runnable by id; a version that does not exist is 404 where a
 * tool id is given (src/toolkits.ts `resolveTool`).
 */
import { decodeCursor, encodeCursor } from "@gantry/kit";
import { ability } from "../context.ts";
import { matches, toolkitOf, toolOut } from "../toolkits.ts";

export default ability("integration.app.tools", async (input, _call, ctx) => {
  const toolkit = toolkitOf(ctx.toolkits, input.toolkit);
  const limit = input.limit ?? 20;
  const after = input.cursor ? decodeCursor(input.cursor, { name: "string" }).name : null;
  const all = [...toolkit.latest.values()]
    .filter((t) => matches(input.query, t.name, t.slug, t.description))
    .sort((a, b) => a.name.localeCompare(b.name))
    .filter((t) => after === null || t.name.localeCompare(after) > 0)
    .map(toolOut);
  const items = all.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: all.length > limit && last ? encodeCursor({ name: last.name }) : null };
});
