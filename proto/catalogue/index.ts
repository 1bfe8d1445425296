/**
 * @module catalogue
 * The ability catalogue: every ability of spec §4.2 (`{base_url}` is `gantry.about`), each with
 * its owner service, summary, input JSON Schema (draft 2020-12) and a validating example. Gateway
 * validation, services, discovery, docs, OpenAPI and MCP all read it from here.
 *
 * @example
 * import { abilityById, expandScopes } from "@gantry/proto/catalogue";
 * abilityById.get("memory.search")?.service; // "memory"
 * expandScopes(["contact.*"]); // ["contact.create", "contact.get", "contact.list", "contact.update"]
 */
import type { AbilityDef, ServiceName } from "./types.ts";
import { AREAS, AREA_NAMES, areaOf, ownerOf } from "./areas.ts";
import type { Infer } from "./schema.ts";
import { abilities as connections } from "./connections.ts";
import { abilities as content } from "./content.ts";
import { abilities as gateway } from "./gateway.ts";
import { abilities as keys } from "./keys.ts";
import { abilities as memory } from "./memory.ts";
import { abilities as payments } from "./payments.ts";
import { abilities as trust } from "./trust.ts";
import { abilities as web } from "./web.ts";
import { abilities as workspace } from "./workspace.ts";
import { expandScopesOver } from "./scopes.ts";

export type { AbilityDef, AbilityEntry, JsonSchema, ServiceName } from "./types.ts";
export { AREAS, AREA_NAMES, areaOf, ownerOf, type AreaInfo, type AreaName } from "./areas.ts";

/** Every entry as its area file states it, with its literal id and typed input schema. */
type Entry =
  | (typeof gateway)[number]
  | (typeof keys)[number]
  | (typeof connections)[number]
  | (typeof payments)[number]
  | (typeof memory)[number]
  | (typeof content)[number]
  | (typeof trust)[number]
  | (typeof workspace)[number]
  | (typeof web)[number];

/** Every ability id, as a type. */
export type AbilityId = Entry["id"];

/**
 * The input of an ability as its handler receives it (validated, defaults applied), derived from
 * the catalogue schema: no hand-written input interfaces.
 */
export type InputOf<Id extends AbilityId> = Infer<Extract<Entry, { id: Id }>["input"]>;

/** The result of an ability on success, derived from its catalogue `output` schema. */
export type OutputOf<Id extends AbilityId> =
  Extract<Entry, { id: Id }> extends { output: infer S } ? Infer<S> : unknown;
export {
  matchesScope,
  anyScopeMatches,
  isWellFormedScope,
  keyMayCall,
  OPEN_ABILITIES,
  SCOPE_PATTERN,
} from "./scopes.ts";
export { decisions } from "./decisions.ts";

/** Every ability, sorted by id. */
export const catalogue: readonly AbilityDef[] = Object.freeze(
  [...gateway, ...keys, ...connections, ...payments, ...memory, ...content, ...trust, ...workspace, ...web]
    .map((entry): AbilityDef => ({ ...entry, area: areaOf(entry.id), service: ownerOf(entry.id) }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
);

/** Lookup by ability id. */
export const abilityById: ReadonlyMap<string, AbilityDef> = new Map(catalogue.map((ability) => [ability.id, ability]));

if (abilityById.size !== catalogue.length) {
  throw new Error("catalogue: duplicate ability id");
}

/** Every ability id, sorted. */
export const abilityIds: readonly string[] = Object.freeze(catalogue.map((ability) => ability.id));

/** The abilities a service owns, sorted by id. */
export function abilitiesOfService(name: ServiceName): AbilityDef[] {
  return catalogue.filter((ability) => ability.service === name);
}

/** Every area (first segment of an id), sorted and unique: the rows of AREAS. */
export const areas: readonly string[] = AREA_NAMES;

for (const ability of catalogue) {
  if (!Object.hasOwn(AREAS, ability.area)) throw new Error(`catalogue: ${ability.id} has no row in areas.ts`);
}
for (const area of AREA_NAMES) {
  if (!catalogue.some((ability) => ability.area === area)) throw new Error(`catalogue: area ${area} has no ability`);
}

/** The catalogue ids that `scopes` (`*`, exact ids, `<prefix>.*`) grant, sorted. */
export function expandScopes(scopes: string[]): string[] {
  return expandScopesOver(scopes, abilityIds);
}
