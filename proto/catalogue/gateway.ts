/**
 * @module catalogue/gateway
 * Meta abilities the gateway answers itself: capability.discover and gantry.about (the entry the
 * spec writes as `{base_url}`).
 */
import type { AbilityEntry } from "./types.ts";
import { AREA_NAMES } from "./areas.ts";
import { integer, object, oneOfValues, text } from "./schema.ts";

export const abilities = [
  {
    id: "capability.discover",
    summary: "Search the abilities this key may call (ids, descriptions, field names), ranked, with live status.",
    inputSource: "ours",
    input: object({
      query: text(
        'What you want to do, in words or an id fragment (e.g. "send invoice email"). Omit to list everything in scope.',
        500,
      ),
      area: oneOfValues("Restrict results to one area (the first segment of an ability id).", AREA_NAMES),
      limit: integer("Maximum number of abilities to return, best match first (1..100).", 1, 100, 10),
    }),
    example: { query: "send an invoice by email", limit: 5 },
  },
  {
    id: "gantry.about",
    summary:
      "Describe this Gantry for the calling key: version, docs and MCP URLs, callable areas and abilities, limits, tenant.",
    inputSource: "ours",
    input: object({}),
    example: {},
  },
] as const satisfies readonly AbilityEntry[];
