/**
 * @module catalogue/web
 * Web browsing, research and browser QA, owned by the web service (headless Chromium is isolated
 * there). Spec §4.3 gives research.verify as a two-variant union; every other shape is ours.
 */
import type { AbilityEntry } from "./types.ts";
import { array, constant, flag, integer, object, oneOfValues, text, url } from "./schema.ts";

const HOSTNAME_PATTERN = "^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$";

function domains(description: string) {
  return array(
    description,
    text("A hostname (subdomains included), e.g. who.int.", 253, { pattern: HOSTNAME_PATTERN }),
    20,
    1,
    true,
  );
}

function timeoutMs(defaultValue = 30_000) {
  return integer("Give up after this many milliseconds (1000..60000).", 1000, 60_000, defaultValue);
}

function viewport() {
  return oneOfValues(
    "Viewport to emulate: desktop 1366×768 or mobile 390×844 (touch, mobile user agent).",
    ["desktop", "mobile"],
    "desktop",
  );
}

export const abilities = [
  {
    id: "web.browse",
    summary: "Load a public web page in headless Chromium and return its content as Markdown, text or HTML.",
    inputSource: "ours",
    input: object(
      {
        url: url("Page to load (http or https; private and link-local addresses are refused)."),
        format: oneOfValues("Content format returned.", ["markdown", "text", "html"], "markdown"),
        waitUntil: oneOfValues("When the page counts as loaded.", ["load", "domcontentloaded", "networkidle"], "load"),
        maxChars: integer(
          "Truncate the returned content to this many characters (the result says when it did).",
          1000,
          200_000,
          50_000,
        ),
        screenshot: flag("Also return a PNG screenshot of the viewport.", false),
        viewport: viewport(),
        timeoutMs: timeoutMs(),
      },
      ["url"],
    ),
    example: { url: "https://example.com/pricing", format: "markdown", maxChars: 20000 },
  },
  {
    id: "web.research",
    summary: "Research a question on the web: search, read the top sources, return findings with citations.",
    inputSource: "ours",
    input: object(
      {
        query: text("The question or topic.", 1000),
        maxSources: integer("Maximum sources to read (1..20).", 1, 20, 5),
        recencyDays: integer("Only sources published within this many days.", 1, 3650),
        includeDomains: domains("Only search these domains."),
        excludeDomains: domains("Never use these domains."),
        locale: text("Preferred language and region of sources (e.g. en, en-GB).", 6, {
          min: 2,
          pattern: "^[a-z]{2,3}(?:-[A-Z]{2})?$",
        }),
      },
      ["query"],
    ),
    example: { query: "current VAT rate for digital services in Nigeria", maxSources: 5, recencyDays: 365 },
  },
  {
    id: "research.verify",
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
              "Pages to capture; each must be on the registry of official pages (others are refused).",
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
    example: { query: "current VAT rate for digital services in Nigeria" },
  },
  {
    id: "qa.browser_check",
    summary:
      "Load a page in headless Chromium and run checks (status, text, selector, console errors); returns results and a screenshot.",
    inputSource: "ours",
    input: object(
      {
        url: url("Page to check."),
        checks: array(
          "Checks to run. Omitted: the page answers 2xx and logs no console errors.",
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
            ],
          },
          50,
          1,
        ),
        viewport: viewport(),
        screenshot: flag("Return a full-page PNG screenshot.", true),
        timeoutMs: timeoutMs(),
      },
      ["url"],
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
