/**
 * @module catalogue/gateway
 * Meta abilities the gateway answers itself: capability.discover and gantry.about (the entry the
 * spec writes as `{base_url}`).
 */
import type { AbilityDef } from "./types.ts";
import { integer, object, oneOfValues, text } from "./schema.ts";

/**
 * Every ability area (first dot segment of an id). Kept literal here so capability.discover can
 * offer it as an enum; the catalogue test asserts it equals the areas derived from the ids.
 */
export const AREA_NAMES = [
  "capability", "connection", "contact", "decision", "document", "email", "event", "gantry", "guide",
  "integration", "key", "lead", "lesson", "memory", "message", "payment", "payout", "plan", "qa",
  "research", "sim", "skill", "task", "trust", "vertical", "web", "workflow", "workspace",
] as const;

export const abilities: AbilityDef[] = [
  {
    id: "capability.discover",
    area: "capability",
    service: "gateway",
    summary: "Search the abilities this key may call (ids, descriptions, field names), ranked, with live status.",
    inputSource: "ours",
    input: object({
      query: text("What you want to do, in words or an id fragment (e.g. \"send invoice email\"). Omit to list everything in scope.", 500),
      area: oneOfValues("Restrict results to one area (the first segment of an ability id).", AREA_NAMES),
      limit: integer("Maximum number of abilities to return, best match first (1..100).", 1, 100, 10),
    }),
    example: { query: "send an invoice by email", limit: 5 },
  },
  {
    id: "gantry.about",
    area: "gantry",
    service: "gateway",
    summary: "Describe this Gantry for the calling key: version, docs and MCP URLs, callable areas and abilities, limits, tenant.",
    inputSource: "ours",
    input: object({}),
    example: {},
  },
];
