/**
 * @module catalogue/gateway
 * Meta abilities the gateway answers itself: capability.discover and gantry.about (the entry the
 * spec writes as `{base_url}`).
 */
import type { AbilityEntry } from "./types.ts";
import { AREA_NAMES } from "./areas.ts";
import { integer, nullable, object, oneOfValues, text } from "./schema.ts";
import { bool, enumOf, fields, int, list, nullableStr, num, str } from "./output.ts";

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
    output: fields(
      {
        query: nullableStr("The query as searched (trimmed), or null when none was given."),
        area: nullableStr("The area results were restricted to, or null."),
        limit: int("The limit applied."),
        total: int("How many abilities this key may call match (before `limit`)."),
        count: int("How many are returned in `abilities`."),
        abilities: list(
          "Matching abilities this key may call, best match first (catalogue order without a query).",
          fields(
            {
              id: str("Ability id."),
              area: str("Its area (the first segment of the id)."),
              description: str("One-line summary."),
              score: nullable(
                num("Relevance to the query."),
                "Relevance to the query (higher is better, rounded to 2 decimals); null without a query.",
              ),
              matched: list(
                "What matched: `id`, `area`, `summary`, `field:<name>`, `field text`; empty without a query.",
                str("One matched part."),
              ),
              status: enumOf(
                'Live status: "live" runs now (except a part listed in `needs`); "needs_configuration" answers 501 until the operator sets `needs[].variables`; "not_wired" answers 501; "unavailable" answers 503 (retry later).',
                ["live", "needs_configuration", "not_wired", "unavailable"],
              ),
              live: bool("Whether `status` is `live`."),
              needs: list(
                "What it still needs on this deployment; empty when everything runs. An entry with `part` null is the whole ability (status `needs_configuration`); otherwise one part of a live ability.",
                fields(
                  {
                    part: nullableStr(
                      "The part that cannot run (e.g. `channel sms`, `action search`), or null for the whole ability.",
                    ),
                    status: enumOf(
                      "`needs_configuration`: runs once `variables` are set on the owning service; `not_wired`: no provider adapter exists yet.",
                      ["needs_configuration", "not_wired"],
                    ),
                    variables: list("Environment variables of the owning service to set.", str("A variable name.")),
                    message: str("What a call gets and what to do, in one sentence."),
                  },
                  [],
                  { description: "One missing piece." },
                ),
              ),
              path: str("HTTP path to call it with POST (`/v1/abilities/<id>`)."),
              requiredFields: list("Names of its required input fields.", str("A field name.")),
              fields: list("Names of all its input fields (every variant of a union input).", str("A field name.")),
            },
            [],
            { description: "One ability." },
          ),
        ),
        outOfScope: list(
          "Up to 5 abilities that match the query but this key may not call (ids and summaries only); empty without a query.",
          fields(
            {
              id: str("Ability id."),
              description: str("One-line summary."),
              score: num("Relevance to the query (higher is better, rounded to 2 decimals)."),
            },
            [],
            { description: "One ability outside the key's scopes." },
          ),
        ),
        hint: str("What to do next, in one or two sentences."),
        docs: str("URL of the human-readable docs.", { format: "uri" }),
      },
      [],
      { description: "Discovery results for the calling key." },
    ),
    example: { query: "send an invoice by email", limit: 5 },
  },
  {
    id: "gantry.about",
    summary:
      "Describe this Gantry for the calling key: version, docs and MCP URLs, callable areas and abilities, limits, tenant.",
    inputSource: "ours",
    input: object({}),
    output: fields(
      {
        name: str('Always "Gantry".'),
        version: str("Version of this Gantry (release, plus build suffix)."),
        tenant: str("Tenant the call acts for."),
        keyId: str("Id of the calling key."),
        admin: bool("Whether the calling key is an admin key."),
        abilityCount: int("Number of abilities this key may call."),
        areas: list(
          "Abilities this key may call, grouped by area, areas in alphabetical order.",
          fields(
            {
              area: str("Area name."),
              abilities: list("Ability ids of the area this key may call, in catalogue order.", str("An ability id.")),
            },
            [],
            { description: "One area." },
          ),
        ),
        limits: fields(
          {
            rateLimit: fields(
              {
                limit: int("Requests allowed per window."),
                windowSeconds: int("Window length in seconds."),
              },
              [],
              { description: "Rate limit applied to the calling key." },
            ),
            maxBodyBytes: int("Largest request body accepted, in bytes."),
            authCacheSeconds: int(
              "Longest a gateway may keep accepting a key after it was revoked (auth cache bound), in seconds.",
            ),
          },
          [],
          { description: "Limits that apply to the calling key." },
        ),
        urls: fields(
          {
            docs: str("Human-readable docs.", { format: "uri" }),
            mcp: str("MCP endpoint (streamable HTTP).", { format: "uri" }),
            openapi: str("OpenAPI document.", { format: "uri" }),
            abilities: str("Abilities endpoint: GET lists the abilities; `POST <abilities>/<id>` calls one.", {
              format: "uri",
            }),
          },
          [],
          { description: "Where to go next; absolute URLs as this client reaches the gateway." },
        ),
      },
      [],
      { description: "This Gantry, as seen by the calling key." },
    ),
    example: {},
  },
] as const satisfies readonly AbilityEntry[];
