/**
 * @module connections/abilities/integration.app.toolkits
 * The toolkits of the registry (src/toolkits.ts: the shipped ones and, when on, the directory's), by
 * name, or with `query` best match first: the directory's ranking by meaning fused with words
 * (src/directory-search.ts; words only, with a warning in the log, when the model is unavailable)
 * after the shipped toolkits the query is about (src/tool-search.ts `toolScore` ≥ 0.5 over their name, slug and
 * description: curated, so listed first); a shipped toolkit that only shares a word with the query
 * ("an", "customer") comes after the directory's ranking instead of crowding its top. Without the
 * directory, `query` filters by those words and the order stays by name.
 * `category` one of the categories the registry's toolkits use (400 naming them otherwise: an empty
 * page would read as "no toolkit there" for a misspelt one); the kit's cursor codec (by name: the last name and slug; ranked:
 * the position).
 */
import { decodeCursor, encodeCursor, GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { queryWords, toolScore } from "../tool-search.ts";
import { matches, type ToolkitOut, toolkitListing } from "../toolkits.ts";

export default ability("integration.app.toolkits", async (input, _call, ctx) => {
  const limit = input.limit ?? 20;
  const inCategory = (t: ToolkitOut) => !input.category || t.categories.includes(input.category);
  if (input.category) {
    const known = [...new Set(toolkitListing(ctx.toolkits).flatMap((t) => t.categories))].sort();
    if (!known.includes(input.category))
      throw new GantryError("validation_failed", `/input/category is "${input.category}", which no toolkit has.`, {
        reason: `Pass one of the toolkits' categories: ${known.join(", ")}.`,
        details: [
          {
            path: "/input/category",
            message: `/input/category must be one of ${known.join(", ")}`,
            code: "enum",
            params: { allowedValues: known },
          },
        ],
      });
  }
  const directory = ctx.toolkits.directory;
  if (input.query && directory) {
    const at = input.cursor ? decodeCursor(input.cursor, { at: "number" }).at : 0;
    const words = queryWords(input.query);
    const own = [...ctx.toolkits.toolkits.values()]
      .map((t) => ({ t: t.out, score: toolScore(t.out, words) }))
      .filter((r) => matches(input.query, r.t.name, r.t.slug, r.t.description))
      .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name));
    const about = own.filter((r) => r.score >= 0.5).map((r) => r.t);
    const touching = own.filter((r) => r.score < 0.5).map((r) => r.t);
    const byListing = new Map(toolkitListing(ctx.toolkits).map((t) => [t.slug, t]));
    const found = directory.rankToolkits(input.query);
    if (found.warning) ctx.log.warn(found.warning);
    const ranked = [
      ...about,
      ...found.toolkits.filter((r) => !ctx.toolkits.toolkits.has(r.slug)).flatMap((r) => byListing.get(r.slug) ?? []),
      ...touching,
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
