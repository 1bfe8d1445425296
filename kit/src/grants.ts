/**
 * @module kit/grants
 * A key's data grants (memory `collections`, guide `products`) are lists of names, or `*` for every
 * name, as its scope `*` is every ability. `*` is never a name itself: the collection and product
 * patterns cannot match it, so a key holding it cannot be confused with one holding a collection
 * called "*".
 *
 * @example
 * grantsName(["*"], "notes"); // true
 * grantsName(["pets"], "notes"); // false
 */

/** The entry that grants every collection or every product. */
export const ALL_NAMES = "*";

/** True when `granted` (a key's collections or products) covers `name`. */
export function grantsName(granted: readonly string[], name: string): boolean {
  return granted.includes(ALL_NAMES) || granted.includes(name);
}
