/**
 * @module catalogue/web/research
 * The web service's abilities of the `research` area (Research: web research with captured observations).
 * `proto/catalogue/web.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { bool, enumOf, fields, int, list, nullableStr, num, str, timestamp } from "../output.ts";
import { array, constant, integer, nullable, object, text, union, url } from "../schema.ts";
import { sha256, prefixedId, screenshot } from "./shared.ts";

/** A dated passage of a fetched page: what research.verify reports instead of a verdict. */
function observation() {
  return fields(
    {
      url: str("Page the passage is on (after redirects).", { format: "uri" }),
      title: nullableStr("Page title, or null."),
      quote: str("The passage, exactly as in the page's extracted text: `text.slice(start, end)`."),
      start: int("Offset of the passage in the page's extracted text, in UTF-16 code units."),
      end: int("Offset just past the passage (exclusive), in UTF-16 code units."),
      contentSha256: sha256("SHA-256 (hex) of the page's extracted text (UTF-8) the offsets refer to."),
      relevance: num("Relevance of the passage to the query or focus, 0..1 (higher is closer)."),
      published: nullableStr("Publication date as the page states it (not normalised), or null when it states none."),
      fetched: timestamp("When the page was fetched (RFC 3339): the observation's date."),
    },
    [],
    { description: "An observation: a dated, hashed quote — not a verdict." },
  );
}

export const abilities = [
  {
    id: "research.verify",
    // Several pages fetched and read in turn.
    deadlineMs: 75_000,
    summary:
      "Search current web sources or capture registered official pages; returns dated observations, not automatic truth.",
    inputSource: "spec",
    input: {
      type: "object",
      description:
        "One of two variants, selected by `action`: `search` (default when `action` is omitted) searches current sources for a query; `capture` captures registered official pages.",
      oneOf: [
        object(
          {
            action: constant("`search` (may be omitted): search current sources.", "search"),
            query: text("The statement or question to check against current sources.", 1000),
            maxSources: integer("Maximum sources to observe (1..20). Omitted means 5.", 1, 20),
            recencyDays: integer("Only sources published within this many days.", 1, 3650),
          },
          ["query"],
          { title: "search", description: "Observations from current web sources for the query." },
        ),
        object(
          {
            action: constant("`capture`: capture registered official pages.", "capture"),
            urls: array(
              "Pages to capture; each must be on the registry of official pages, which the operator keeps per tenant (others are refused with 400).",
              url("An official page."),
              10,
              1,
              true,
            ),
            focus: text("What to look for on the pages; observations are limited to it.", 1000),
          },
          ["action", "urls"],
          { title: "capture", description: "Timestamped captures (text, hash, screenshot) of official pages." },
        ),
      ],
    },
    output: union(
      [
        fields(
          {
            action: enumOf("The variant that ran (also when `action` was omitted).", ["search"]),
            query: str("The statement or question, as given."),
            observations: list("Dated observations from current sources, most relevant first.", observation()),
            searchProvider: str("Search backend used (e.g. `searxng`)."),
            searched: timestamp("When the search ran (RFC 3339)."),
          },
          [],
          { title: "search", description: "Observations from current sources: evidence to weigh, never a verdict." },
        ),
        fields(
          {
            action: enumOf("The variant that ran.", ["capture"]),
            captures: list(
              "One capture per URL, in input order.",
              fields(
                {
                  id: prefixedId("cap", "Capture id (`cap_…`)."),
                  url: str("Registered page captured, as given.", { format: "uri" }),
                  finalUrl: str("URL captured after redirects.", { format: "uri" }),
                  status: int("HTTP status of the page."),
                  text: str("The page's extracted text."),
                  contentSha256: sha256("SHA-256 (hex) of `text` (UTF-8)."),
                  screenshot: screenshot("Full-page PNG of the capture, or null when the page could not be rendered."),
                  observations: list(
                    "Passages of the page matching `focus`, most relevant first; empty when no focus was given.",
                    observation(),
                  ),
                  previous: nullable(
                    fields(
                      {
                        id: prefixedId("cap", "Capture id."),
                        captured: timestamp("When it was captured (RFC 3339)."),
                        contentSha256: sha256("Its content hash."),
                      },
                      [],
                      { description: "Previous capture." },
                    ),
                    "The tenant's previous capture of the page, or null on the first.",
                  ),
                  changed: nullable(
                    bool("Changed."),
                    "Whether `text` differs from the previous capture; null on the first capture.",
                  ),
                  diff: nullableStr(
                    "Unified diff of `text` against the previous capture; null on the first capture or when unchanged.",
                  ),
                  captured: timestamp("When the page was captured (RFC 3339)."),
                },
                [],
                { description: "A capture." },
              ),
            ),
          },
          [],
          { title: "capture", description: "Timestamped captures of registered official pages, stored per tenant." },
        ),
      ],
      { description: "One result per input variant, told apart by `action`." },
    ),
    example: { query: "current VAT rate for digital services in Nigeria" },
  },
] as const satisfies readonly AbilityEntry[];
