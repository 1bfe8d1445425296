/**
 * @module connections/abilities/integration.app.toolkits
 * The toolkits of the registry (src/toolkits.ts: the shipped ones and, when on, the directory's), by
 * name, or with `query` best match first: the directory's ranking by meaning fused with words
 * (src/directory-search.ts; words only, with a warning in the log, when the model is unavailable)
 * after the shipped toolkits the query matches (any word of name, slug or description), which are curated and
 * so listed first. Without the directory, `query` filters by those words and the order stays by name.
 * `category` one of the categories; the kit's cursor codec (by name: the last name and slug; ranked:
 * the position).
 */
import { decodeCursor, encodeCursor } from "@gantry/kit";
import { ability } from "../context.ts";
import { matches, type ToolkitOut, toolkitListing } from "../toolkits.ts";

export default ability("integration.app.toolkits", async (input, _call, ctx) => {
  const limit = input.limit ?? 20;
  const inCategory = (t: ToolkitOut) => !input.category || t.categories.includes(input.category);
  const directory = ctx.toolkits.directory;
  if (input.query && directory) {
    const at = input.cursor ? decodeCursor(input.cursor, { at: "number" }).at : 0;
    const own = [...ctx.toolkits.toolkits.values()]
      .map((t) => t.out)
      .filter((t) => matches(input.query, t.name, t.slug, t.description))
      .sort((a, b) => a.name.localeCompare(b.name));
    const byListing = new Map(toolkitListing(ctx.toolkits).map((t) => [t.slug, t]));
    const found = await directory.rankToolkits(input.query);
    if (found.warning) ctx.log.warn(found.warning);
    const ranked = [
      ...own,
      ...found.toolkits.filter((r) => !ctx.toolkits.toolkits.has(r.slug)).flatMap((r) => byListing.get(r.slug) ?? []),
    ].filter(inCategory);
    const items = ranked.slice(at, at + limit);
    return { items, nextCursor: ranked.length > at + limit ? encodeCursor({ at: at + limit }) : null };
  }
  const after = input.cursor ? decodeCursor(input.cursor, { name: "string", slug: "string" }) : null;
  const all = toolkitListing(ctx.toolkits)
    .filter((t) => matches(input.query, t.name, t.slug, t.description))
    .filter(inCategory)
    .filter((t) => !after || t.name.localeCompare(after.name) > 0 || (t.name === after.name && t.slug > after.slug));
  const items = all.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    nextCursor: all.length > limit && last ? encodeCursor({ name: last.name, slug: last.slug }) : null,
  };
});
