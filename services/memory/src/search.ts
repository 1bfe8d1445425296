/**
 * @module memory/search
 * One search of a scoped collection, shared by memory.search and memory.recall: the collection
 * resolved against the key's scope, the filter parsed (and the input's `vertical`, when given, keeps
 * only memories saved in that vertical), a collection of another model refused (409),
 * the query embedded and ranked by the store (similarity × recency decay).
 */
import type { CallContext } from "@gantry/kit";
import { resolveCollection } from "./collections.ts";
import { halfLifeMs, type Context } from "./context.ts";
import { parseFilter } from "./filter.ts";
import { hitOut, type HitOut } from "./format.ts";
import { mixedModels } from "./store/refusals.ts";

export async function searchCollection(
  ctx: Context,
  call: CallContext,
  collectionIn: string | undefined,
  query: string,
  limit: number,
  filter?: unknown,
  vertical?: string,
): Promise<{ collection: string; hits: HitOut[] }> {
  const collection = resolveCollection(call, collectionIn);
  const node = parseFilter(filter);
  const current = await ctx.store.partitionModel(call.tenant, collection);
  if (current && (current.model !== ctx.embedder.model || current.dimensions !== ctx.embedder.dimensions))
    throw mixedModels(collection, current.model, ctx.embedder.model);
  if (!current) return { collection, hits: [] };
  const [vector] = await ctx.embedder.embed([query], "query");
  const hits = await ctx.store.search(call.tenant, collection, vector, {
    limit,
    filter: node,
    vertical,
    now: ctx.now(),
    halfLifeMs: halfLifeMs(ctx.config),
  });
  return { collection, hits: hits.map(hitOut) };
}
