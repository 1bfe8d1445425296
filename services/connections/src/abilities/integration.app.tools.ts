/**
 * @module connections/abilities/integration.app.tools
 * The tools of one toolkit (latest version of each, by name) with their input schemas, each with its
 * version-pinned id (`toolkit.tool@N`). An unknown toolkit is 404 naming `/input/toolkit`. Older
 * versions are not listed here but stay runnable by id; a version that does not exist is 404 where a
 * tool id is given (src/toolkits.ts `resolveTool`).
 *
 * Without `toolkit`, `query` is searched across every toolkit, best first: the shipped toolkits'
 * tools that match (src/tool-search.ts `toolScore`), then the directory's ranking by meaning fused
 * with words (src/directory-search.ts). With `toolkit` and `query`, a directory toolkit's tools are
 * ranked the same way (best first, paged by position); a shipped toolkit's are filtered by word, by
 * name. Where the model is unavailable the ranking is by words, with a warning in the log.
 */
import { decodeCursor, encodeCursor } from "@gantry/kit";
import { ability } from "../context.ts";
import { invalidField } from "../records.ts";
import { queryWords, toolScore, toolScores } from "../tool-search.ts";
import { matches, type Tool, toolkitOf, toolOut } from "../toolkits.ts";

/** The deepest a search pages: the ranking past it is noise, and each page re-ranks. */
const SEARCH_DEPTH = 200;

export default ability("integration.app.tools", async (input, _call, ctx) => {
  const limit = input.limit ?? 20;
  if (input.toolkit === undefined) {
    if (!input.query)
      throw invalidField(
        "/input/query",
        "is required when toolkit is omitted: name a toolkit to list its tools, or say what you want done to search them all",
        "required",
      );
    const at = input.cursor ? decodeCursor(input.cursor, { at: "number" }).at : 0;
    const words = queryWords(input.query);
    const own = [...ctx.toolkits.toolkits.values()]
      .flatMap((k) => [...k.latest.values()])
      .map((t) => ({ t, score: toolScore(t, words) }))
      .filter((r) => r.score >= 0.5)
      .sort((a, b) => b.score - a.score || a.t.id.localeCompare(b.t.id))
      .map((r) => r.t);
    const directory = ctx.toolkits.directory;
    const fused = directory ? directory.rankTools(input.query, SEARCH_DEPTH) : null;
    if (fused?.warning) ctx.log.warn(fused.warning);
    const found = (fused?.tools ?? [])
      .filter((r) => !ctx.toolkits.toolkits.has(r.toolkit))
      .map((r) => ({ toolkit: r.toolkit, name: r.name }));
    const ranked = [...own.map((t) => ({ toolkit: t.toolkit, name: t.name })), ...found].slice(0, SEARCH_DEPTH);
    // Only the page's tools are read (their toolkits' shards), not every match's.
    const items = ranked
      .slice(at, at + limit)
      .flatMap((r) => toolkitOf(ctx.toolkits, r.toolkit).latest.get(r.name) ?? [])
      .map((t: Tool) => toolOut(t));
    return { items, nextCursor: ranked.length > at + limit ? encodeCursor({ at: at + limit }) : null };
  }
  const toolkit = toolkitOf(ctx.toolkits, input.toolkit);
  if (input.query && ctx.toolkits.directory && !ctx.toolkits.toolkits.has(input.toolkit)) {
    const words = queryWords(input.query);
    // Weighted as integration.search weighs a connection's tools, so both rank a toolkit alike.
    const lexical = toolScores([...toolkit.latest.values()], words);
    const ranked = ctx.toolkits.directory.rankWithin(input.toolkit, input.query, lexical);
    if (ranked.warning) ctx.log.warn(ranked.warning);
    const at = input.cursor ? decodeCursor(input.cursor, { at: "number" }).at : 0;
    const items = ranked.tools
      .slice(at, at + limit)
      .flatMap((r) => toolkit.latest.get(r.name) ?? [])
      .map(toolOut);
    return { items, nextCursor: ranked.tools.length > at + limit ? encodeCursor({ at: at + limit }) : null };
  }
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
