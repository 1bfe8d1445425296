/**
 * @module memory/collections
 * Collection scope (spec §5.7): the key's `collections` decide. An omitted collection is the key's
 * first named one; a collection outside the list is refused with 403; a key without collections can
 * use no memory collection at all (the admin flag does not widen this: collections are data scope,
 * not key-management rights). `*` grants every collection (the first admin key holds it); a key whose
 * only entry is `*` has no first name, so its omitted collection is `default`.
 */
import { GantryError, type CallContext } from "@gantry/kit";
import { ALL_NAMES, grantsName } from "@gantry/kit/grants.ts";

/** The collection of a key that holds only `*` when a call names none. */
export const DEFAULT_COLLECTION = "default";

export function resolveCollection(call: CallContext, requested: string | undefined): string {
  const scoped = call.collections ?? [];
  if (requested !== undefined) {
    if (!grantsName(scoped, requested)) {
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
  return scoped.find((c) => c !== ALL_NAMES) ?? DEFAULT_COLLECTION;
}
