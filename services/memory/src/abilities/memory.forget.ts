/**
 * @module memory/abilities/memory.forget
 * `memory.forget {id, collection?}` or `{filter, collection?, dryRun?}` → `{collection, forgotten,
 * matched, dryRun}`.
 *
 * - By id: the memory must be the tenant's (else 404) and its collection within the key's scope
 *   (else 403); when `collection` is given it must be that memory's collection (else 404).
 * - By filter: every memory of the collection (default: the key's first) matching the filter (same
 *   grammar as memory.search; at least one condition, so a whole collection is never wiped by an
 *   empty filter). `dryRun: true` only counts (`matched`), deleting nothing.
 */
import { GantryError } from "@gantry/kit";
import { resolveCollection } from "../collections.ts";
import { ability } from "../context.ts";
import { parseFilter } from "../filter.ts";

export default ability("memory.forget", async (input, call, ctx) => {
  if ("id" in input) {
    if (input.collection !== undefined) resolveCollection(call, input.collection);
    const found = await ctx.store.get(call.tenant, input.id);
    if (!found || (input.collection !== undefined && found.collection !== input.collection)) {
      throw new GantryError(
        "not_found",
        `No memory ${input.id}${input.collection ? ` in collection "${input.collection}"` : ""}.`,
      );
    }
    const collection = resolveCollection(call, found.collection);
    const n = await ctx.store.forgetIds(call.tenant, collection, [input.id]);
    return { collection, forgotten: n, matched: n, dryRun: false };
  }
  const collection = resolveCollection(call, input.collection);
  const node = parseFilter(input.filter);
  if (!node) throw new GantryError("validation_failed", "memory.forget needs at least one filter condition.");
  const dryRun = input.dryRun === true;
  const n = await ctx.store.forgetWhere(call.tenant, collection, node, dryRun);
  return { collection, forgotten: dryRun ? 0 : n, matched: n, dryRun };
});
