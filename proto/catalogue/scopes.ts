/**
 * @module catalogue/scopes
 * Key scopes: what a key may call. A scope is `*` (every ability), an exact ability id
 * (`contact.get`), or a prefix pattern `<prefix>.*` matching every id that starts with `<prefix>.`
 * (`workspace.*` matches `workspace.doc.read`; `contact.*` matches `contact.get`; `integration.app.*`
 * matches `integration.app.tools` but not `integration.execute`). Nothing else matches: no infix or
 * suffix wildcards, and `contact.*` does not match the bare word `contact`.
 *
 * @example
 * matchesScope("workspace.*", "workspace.doc.read"); // true
 * expandScopesOver(["contact.*", "key.inspect"], ids); // ["contact.create", …, "key.inspect"]
 */

/** Shape of a well-formed scope (used by key.issue's input schema). */
export const SCOPE_PATTERN = "^(?:\\*|[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*(?:\\.\\*)?)$";

const scopeRegExp = new RegExp(SCOPE_PATTERN);

/** True when `scope` is syntactically a scope (`*`, `a.b`, `a.*`, `a.b.*`). */
export function isWellFormedScope(scope: string): boolean {
  return scopeRegExp.test(scope);
}

/** True when `scope` grants `abilityId`. */
export function matchesScope(scope: string, abilityId: string): boolean {
  if (scope === "*") return true;
  if (scope.endsWith(".*")) {
    const prefix = scope.slice(0, -1); // keeps the trailing dot: "workspace."
    return prefix.length > 1 && abilityId.startsWith(prefix) && abilityId.length > prefix.length;
  }
  return scope === abilityId;
}

/** True when any of `scopes` grants `abilityId`. */
export function anyScopeMatches(scopes: readonly string[], abilityId: string): boolean {
  return scopes.some((scope) => matchesScope(scope, abilityId));
}

/**
 * Abilities every authenticated key may call, whatever its scopes (spec §5.11: "vertical.manifest_get
 * and key.inspect may be called by any authenticated key"), plus self-discovery: `gantry.about` and
 * `capability.discover` only ever describe what the calling key itself may do, and a key's own
 * `/docs` page tells it to use them, so refusing them to a narrowly scoped key helped nobody.
 * Not a scope: keys cannot be issued "without" them, and containment never needs to grant them.
 */
export const OPEN_ABILITIES: readonly string[] = Object.freeze([
  "capability.discover",
  "gantry.about",
  "key.inspect",
  "vertical.manifest_get",
]);

/** True when a key holding `scopes` may call `abilityId`: a scope grants it, or it is open to every key. */
export function keyMayCall(scopes: readonly string[], abilityId: string): boolean {
  return OPEN_ABILITIES.includes(abilityId) || anyScopeMatches(scopes, abilityId);
}

/** The ids among `ids` that `scopes` grant, sorted and without duplicates. */
export function expandScopesOver(scopes: readonly string[], ids: readonly string[]): string[] {
  return [...new Set(ids.filter((abilityId) => anyScopeMatches(scopes, abilityId)))].sort();
}
