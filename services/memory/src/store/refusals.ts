/**
 * @module memory/store/refusals
 * The refusals every store gives the same way (a collection of another model, an id living in
 * another collection). Their own module so that the stores and the save plan share them without
 * importing each other.
 */
import { GantryError } from "@gantry/kit";

export function mixedModels(collection: string, has: string, wants: string): GantryError {
  return new GantryError(
    "conflict",
    `Collection "${collection}" holds vectors of the model ${has}; this service embeds with ${wants}. Mixing models in one collection is refused.`,
    {
      reason: `Re-embed the collection with the configured model (npm run reembed -w @gantry/memory -- --tenant <tenant> --collection ${collection}), or configure the memory service with ${has} again.`,
    },
  );
}

export function idInOtherCollection(id: string, collection: string): GantryError {
  return new GantryError(
    "conflict",
    `Memory ${id} belongs to collection "${collection}"; an id is unique per tenant and a memory does not move between collections.`,
    {
      reason: "Save it with that collection, or forget it there first.",
    },
  );
}
