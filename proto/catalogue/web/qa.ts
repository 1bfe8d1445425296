/**
 * @module catalogue/web/qa
 * The web service's abilities of the `qa` area (Quality checks: quality checks).
 * `proto/catalogue/web.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { bool, enumOf, fields, int, list, nullableStr, num, str, timestamp } from "../output.ts";
import { array, constant, flag, integer, nullable, object, oneOfValues, text, union, url } from "../schema.ts";
import { timeoutMs, viewport, nullableInt, screenshot } from "./shared.ts";

/** One axe-core rule result: the rule, its impact, and where on the page. */
function axeRule() {
  return fields(
    {
      id: str("axe-core rule id (e.g. `image-alt`)."),
      impact: nullable(
        enumOf("Impact.", ["minor", "moderate", "serious", "critical"]),
        "Impact as axe-core rates it, or null when it gives none.",
      ),
      help: str("What the rule asks for."),
      helpUrl: str("axe-core's page on the rule.", { format: "uri" }),
      tags: list("WCAG criteria and other tags of the rule (e.g. `wcag2a`, `wcag111`).", str("A tag.")),
      nodes: int("Elements affected."),
      targets: list("CSS selectors of the first affected elements (at most 5).", str("A selector.")),
    },
    [],
    { description: "An axe-core rule result." },
  );
}

/** One check result of qa.browser_check, per check type. */
function checkResult() {
  const common = {
    index: int("Position of the check in `checks` (0-based)."),
    passed: bool("Whether the check passed."),
  };
  return union(
    [
      fields(
        {
          ...common,
          type: enumOf("The check type.", ["status"]),
          expected: int("Expected HTTP status."),
          actual: int("HTTP status of the main document."),
        },
        [],
        { title: "status", description: "HTTP status result." },
      ),
      fields(
        {
          ...common,
          type: enumOf("The check type.", ["text"]),
          text: str("Text looked for."),
          present: bool("Whether the text had to be present (true) or absent (false)."),
          found: int("Occurrences in the visible text (whitespace-normalised)."),
        },
        [],
        { title: "text", description: "Visible text result." },
      ),
      fields(
        {
          ...common,
          type: enumOf("The check type.", ["selector"]),
          selector: str("CSS selector."),
          present: bool("Whether a visible match had to exist (true) or none could (false)."),
          matched: int("Elements matching the selector."),
          visible: int("Of those, elements visible."),
        },
        [],
        { title: "selector", description: "Selector result." },
      ),
      fields(
        {
          ...common,
          type: enumOf("The check type.", ["no_console_errors"]),
          errors: list(
            "Console errors and uncaught exceptions, in order (empty when it passed).",
            fields(
              {
                kind: enumOf("`console` (logged at error level) or `exception` (uncaught).", ["console", "exception"]),
                message: str("The message."),
                source: nullableStr("Script URL it came from, or null."),
                line: nullableInt("Line in that script (1-based), or null."),
              },
              [],
              { description: "One error." },
            ),
          ),
        },
        [],
        { title: "no_console_errors", description: "Console result." },
      ),
      fields(
        {
          ...common,
          type: enumOf("The check type.", ["accessibility"]),
          minImpact: enumOf("Lowest impact that fails the check.", ["minor", "moderate", "serious", "critical"]),
          violations: list("Rules the page breaks (axe-core `violations`), most severe first.", axeRule()),
          needsReview: list(
            "Rules axe-core could not decide and a person should check (axe-core `incomplete`); they never fail the check.",
            axeRule(),
          ),
          engine: str("The axe-core version that ran."),
        },
        [],
        { title: "accessibility", description: "Accessibility result." },
      ),
      fields(
        {
          ...common,
          type: enumOf("The check type.", ["broken_links"]),
          checked: int("Links checked."),
          found: int("Distinct http(s) links on the page."),
          broken: list(
            "Links that failed, in page order.",
            fields(
              {
                url: str("The link (absolute).", { format: "uri" }),
                status: nullableInt("HTTP status it answered (≥ 400), or null when no response came."),
                error: nullableStr("Why no response came (refused by the SSRF guard, unreachable, timeout), or null."),
              },
              [],
              { description: "A broken link." },
            ),
          ),
        },
        [],
        { title: "broken_links", description: "Broken-links result." },
      ),
    ],
    { description: "One check result, by `type`." },
  );
}

export const abilities = [
  {
    id: "qa.browser_check",
    // Its page work may take the input's timeoutMs (up to 60 s), plus starting the browser.
    deadlineMs: 75_000,
    summary:
      "Load a page in headless Chromium and run checks (status, text, selector, console errors, accessibility with axe-core, broken links); returns results and timings.",
    inputSource: "ours",
    input: object(
      {
        url: url("Page to check."),
        checks: array(
          "Checks to run. Omitted: the page answers 200 and logs no console errors.",
          {
            type: "object",
            description: "One check, selected by `type`.",
            oneOf: [
              object(
                {
                  type: constant("`status`: the main document's HTTP status.", "status"),
                  expect: integer("Expected HTTP status.", 100, 599),
                },
                ["type", "expect"],
                { title: "status", description: "HTTP status equals expect." },
              ),
              object(
                {
                  type: constant("`text`: visible text is (or is not) on the page.", "text"),
                  text: text("Text to look for (case-sensitive, whitespace-normalised).", 1000),
                  present: flag("false: the text must be absent. Omitted means true."),
                },
                ["type", "text"],
                { title: "text", description: "Visible text present or absent." },
              ),
              object(
                {
                  type: constant("`selector`: an element matching a CSS selector is visible.", "selector"),
                  selector: text("CSS selector.", 500),
                  present: flag("false: no element may match. Omitted means true."),
                },
                ["type", "selector"],
                { title: "selector", description: "Element present or absent." },
              ),
              object(
                {
                  type: constant(
                    "`no_console_errors`: nothing logged at error level, no uncaught exception.",
                    "no_console_errors",
                  ),
                },
                ["type"],
                { title: "no_console_errors", description: "Clean console." },
              ),
              object(
                {
                  type: constant(
                    "`accessibility`: axe-core (WCAG 2.0/2.1/2.2 A and AA rules) finds no violation at or above `minImpact`.",
                    "accessibility",
                  ),
                  minImpact: oneOfValues("Lowest impact that fails the check. Omitted means `serious`.", [
                    "minor",
                    "moderate",
                    "serious",
                    "critical",
                  ]),
                },
                ["type"],
                { title: "accessibility", description: "Accessibility (axe-core)." },
              ),
              object(
                {
                  type: constant(
                    "`broken_links`: the page's http(s) links answer below 400 (checked through the SSRF guard; links to non-public addresses count as broken).",
                    "broken_links",
                  ),
                  maxLinks: integer("Check at most this many links, in page order. Omitted means 50.", 1, 200),
                },
                ["type"],
                { title: "broken_links", description: "Links that do not work." },
              ),
            ],
          },
          50,
          1,
        ),
        viewport: viewport(),
        screenshot: flag("Return a full-page PNG screenshot (cut at 10 000 px of height).", true),
        timeoutMs: timeoutMs(),
      },
      ["url"],
    ),
    output: fields(
      {
        url: str("Page checked, as given.", { format: "uri" }),
        finalUrl: str("URL loaded after redirects.", { format: "uri" }),
        status: int("HTTP status of the main document."),
        viewport: enumOf("Viewport emulated.", ["desktop", "mobile"]),
        passed: bool("Whether every check passed."),
        checks: list(
          "One result per check, in input order (the two default checks when none were given).",
          checkResult(),
        ),
        timings: fields(
          {
            domContentLoadedMs: int("Time to DOMContentLoaded from navigation start, in milliseconds."),
            loadMs: int("Time to the load event, in milliseconds."),
            lcpMs: nullable(
              num("LCP."),
              "Largest Contentful Paint in milliseconds, or null when the browser reported none.",
            ),
          },
          [],
          { description: "Page timings." },
        ),
        screenshot: screenshot("Full-page PNG when `screenshot` was true (the default); null otherwise."),
        checked: timestamp("When the check ran (RFC 3339)."),
        durationMs: int("Time the whole check took, in milliseconds."),
      },
      [],
      { description: "The check results, timings and screenshot." },
    ),
    example: {
      url: "https://example.com/book",
      checks: [
        { type: "status", expect: 200 },
        { type: "text", text: "Book an appointment" },
        { type: "selector", selector: "form#booking button[type=submit]" },
        { type: "no_console_errors" },
      ],
      viewport: "mobile",
    },
  },
] as const satisfies readonly AbilityEntry[];
