/**
 * @module memory/collections
 * Collection scope (spec §5.7): the key's `collections` decide. An omitted collection is the key's
 * first one; a collection outside the list is refused with 403; a key without collections can use
 * no memory collection at all (the admin flag does not widen this: collections are data scope, not
 * key-management rights).
 */
import { GantryError, type CallContext } from "@gantry/kit";

export function resolveCollection(call: CallContext, requested: string | undefined): string {
  const scoped = call.collections ?? [];
  if (requested !== undefined) {
    if (!scoped.includes(requested)) {
      throw new GantryError("forbidden", `Collection "${requested}" is outside this key's scope.`, {
        reason: scoped.length
          ? `This key may use the collections: ${scoped.join(", ")}.`
          : "This key has no memory collections; issue a key with `collections` to use memory abilities.",
      });
    }
    return requested;
  }
  if (scoped.length === 0) {
    throw new GantryError("forbidden", "This key has no memory collections.", {
      reason:
        "Memory abilities work on the key's collections; issue a key with `collections` (the first is the default).",
    });
  }
  return scoped[0];
}
