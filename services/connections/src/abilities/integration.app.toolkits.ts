/**
 * @module connections/abilities/integration.app.toolkits
 * The toolkits of the registry (src/toolkits.ts), by name: `query` matches any word in the name,
 * slug or description; `category` one of the categories; the kit's cursor codec (position: the last
 * name and slug).
 */
import { decodeCursor, encodeCursor } from "@gantry/kit";
import { ability } from "../context.ts";
import { matches } from "../toolkits.ts";

export default ability("integration.app.toolkits", async (input, _call, ctx) => {
  const limit = input.limit ?? 20;
  const after = input.cursor ? decodeCursor(input.cursor, { name: "string", slug: "string" }) : null;
  const all = [...ctx.toolkits.toolkits.values()]
    .map((t) => t.out)
    .filter((t) => matches(input.query, t.name, t.slug, t.description))
    .filter((t) => !input.category || t.categories.includes(input.category))
    .sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug))
    .filter((t) => !after || t.name.localeCompare(after.name) > 0 || (t.name === after.name && t.slug > after.slug));
  const items = all.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    nextCursor: all.length > limit && last ? encodeCursor({ name: last.name, slug: last.slug }) : null,
  };
});
