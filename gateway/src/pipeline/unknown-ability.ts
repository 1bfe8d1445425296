/**
 * @module gateway/pipeline/unknown-ability
 * The answers for an ability id no ability has, and for a declared ability that is not wired
 * (501): both speak to an API user, who has no repository, so they point at the gateway's own
 * `/docs` page (absolute, from PUBLIC_URL or the request) and, for a mistyped id, suggest the
 * closest id the key may call ("Did you mean contact.list?"), by edit distance.
 */
import { catalogue, keyMayCall } from "@gantry/proto/catalogue";
import { GantryError, type ErrorDetail } from "@gantry/kit";

/** Levenshtein distance between `a` and `b` (insertions, deletions, substitutions; each costs 1). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}

/**
 * The id among those `scopes` may call closest to `typed`, when it is close enough to be a typo:
 * at most a third of the typed length (and at least 2) edits away; ties go to the first in
 * catalogue order. Undefined when nothing is that close.
 */
export function suggestAbility(typed: string, scopes: readonly string[]): string | undefined {
  const wanted = typed.trim().toLowerCase();
  if (!wanted) return undefined;
  const bound = Math.max(2, Math.floor(wanted.length / 3));
  let best: { id: string; distance: number } | undefined;
  for (const a of catalogue) {
    if (!keyMayCall(scopes, a.id)) continue;
    const distance = editDistance(wanted, a.id);
    if (distance <= bound && (!best || distance < best.distance)) best = { id: a.id, distance };
  }
  return best?.id;
}

/** `<base>/docs`, the page that lists what a key may call, each ability with its status and input. */
export function docsUrl(baseUrl: string, abilityId?: string): string {
  return `${baseUrl}/docs${abilityId ? `#ability-${abilityId}` : ""}`;
}

/**
 * 404 `unknown_ability` (per-ability path and discovery) or, with `execute`, 400 `invalid_request`
 * (the `ability` field of `/abilities/execute`): names the id, suggests the closest callable one
 * in `reason` and in the detail's `suggestion`, and links `/docs`.
 */
export function unknownAbilityError(
  id: unknown,
  scopes: readonly string[],
  baseUrl: string,
  path: "/ability" | "/path/id",
): GantryError {
  const suggestion = typeof id === "string" ? suggestAbility(id, scopes) : undefined;
  const hint = suggestion ? `Did you mean ${suggestion}? ` : "";
  const reason = `${hint}${docsUrl(baseUrl)} (or GET /v1/abilities) lists the abilities this key may call.`;
  const detail: ErrorDetail =
    path === "/ability"
      ? { path, message: "/ability must be one of the catalogue's ability ids", code: "enum" }
      : { path, message: `No ability has the id ${JSON.stringify(id)}`, code: "ability_not_found" };
  if (suggestion) detail.suggestion = suggestion;
  return path === "/ability"
    ? new GantryError("invalid_request", `Unknown ability ${JSON.stringify(id)}.`, { reason, details: [detail] })
    : new GantryError("unknown_ability", `No ability has the id ${JSON.stringify(id)}.`, { reason, details: [detail] });
}

/**
 * The reason a 501 gives: the owner's own (what is missing; a repository path in it is dropped,
 * since an API user has no repository), then the gateway's `/docs` page for this ability.
 */
export function notImplementedReason(ability: string, ownerReason: string | undefined, baseUrl: string): string {
  const own = (ownerReason ?? "")
    .replace(/;?\s*see docs\/[\w./-]+\.md\.?/gi, ".")
    .replace(/\.\.$/, ".")
    .trim();
  return `${own || `${ability} is not wired yet.`} ${docsUrl(baseUrl, ability)} shows each ability's status and which of this key's abilities are live.`;
}
