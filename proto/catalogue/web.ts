/**
 * @module catalogue/web
 * Web browsing, research and browser QA, owned by the web service (headless Chromium is isolated
 * there). Spec §4.3 gives research.verify as a two-variant union; every other shape is ours.
 */
import type { AbilityEntry } from "./types.ts";
import { bool, enumOf, fields, int, list, nullableStr, nullableTimestamp, num, str, timestamp } from "./output.ts";
import { array, constant, flag, integer, nullable, object, oneOfValues, text, union, url } from "./schema.ts";

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

// ---- Results ----------------------------------------------------------------------------------

const SHA256_HEX = "^[0-9a-f]{64}$";

function sha256(description: string) {
  return str(description, { pattern: SHA256_HEX });
}

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

function nullableInt(description: string) {
  return nullable(int("An integer."), description);
}

/** A PNG screenshot stored as an artifact behind an expiring signed link. */
function screenshot(description: string) {
  return nullable(
    fields(
      {
        id: prefixedId("art", "Artifact id (`art_…`)."),
        url: str("Signed download URL; works without an API key until `expires`.", { format: "uri" }),
        contentType: str("Always `image/png`."),
        width: int("Width in pixels."),
        height: int("Height in pixels."),
        bytes: int("Size in bytes."),
        sha256: sha256("SHA-256 (hex) of the PNG."),
        expires: timestamp("When `url` stops working (RFC 3339)."),
      },
      [],
      { description: "A screenshot." },
    ),
    description,
  );
}

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
    id: "web.browse",
    // Its page work may take the input's timeoutMs (up to 60 s), plus starting the browser.
    deadlineMs: 75_000,
    summary: "Load a public web page in headless Chromium and return its content as Markdown, text or HTML.",
    inputSource: "ours",
    input: object(
      {
        url: url("Page to load (http or https; private and link-local addresses are refused)."),
        format: oneOfValues("Content format returned.", ["markdown", "text", "html"], "markdown"),
        renderer: oneOfValues(
          "`auto`: over HTTP, and in headless Chromium when the page needs JavaScript (little text and scripts); `http` or `browser`: always that way.",
          ["auto", "http", "browser"],
          "auto",
        ),
        waitUntil: oneOfValues(
          "When the page counts as loaded (browser rendering only).",
          ["load", "domcontentloaded", "networkidle"],
          "load",
        ),
        maxChars: integer(
          "Truncate the returned content to this many characters (the result says when it did).",
          1000,
          200_000,
          50_000,
        ),
        screenshot: flag(
          "Also return a PNG screenshot of the viewport (the page is then rendered in the browser).",
          false,
        ),
        viewport: viewport(),
        timeoutMs: timeoutMs(),
      },
      ["url"],
    ),
    output: fields(
      {
        url: str("URL asked for.", { format: "uri" }),
        finalUrl: str("URL the content came from, after redirects.", { format: "uri" }),
        status: int("HTTP status of the final response."),
        redirects: list(
          "Redirects followed, in order (each hop re-checked by the SSRF guard; at most 5); empty when none.",
          fields(
            {
              url: str("URL that redirected.", { format: "uri" }),
              status: int("Its redirect status (301, 302, 303, 307 or 308)."),
            },
            [],
            { description: "One redirect." },
          ),
        ),
        resolvedIp: str("IP address connected to for `finalUrl` (a public unicast address: the guard refused others)."),
        renderer: enumOf(
          "`http`: fetched over HTTP and extracted; `browser`: rendered in headless Chromium (the page needed JavaScript, `renderer` asked for it, or a screenshot was asked for).",
          ["http", "browser"],
        ),
        contentType: nullableStr("Content-Type of the final response, or null."),
        title: nullableStr("Page title (Readability), or null."),
        byline: nullableStr("Author line (Readability), or null."),
        excerpt: nullableStr("Short description or first paragraph (Readability), or null."),
        siteName: nullableStr("Site name, or null."),
        lang: nullableStr("Language of the page (`<html lang>`), or null."),
        published: nullableStr("Publication date as the page states it (not normalised), or null."),
        format: enumOf("Format of `content`.", ["markdown", "text", "html"]),
        content: str("The main content in `format` (boilerplate removed), cut at maxChars when `truncated`."),
        truncated: bool("Whether `content` was cut at maxChars."),
        contentChars: int("Length of the whole content before any cut, in UTF-16 code units."),
        sha256: sha256("SHA-256 (hex) of `content` as returned (UTF-8)."),
        links: list(
          "Links in the main content, absolute, in page order, without duplicates.",
          fields(
            { url: str("Link target (absolute).", { format: "uri" }), text: str("Link text (may be empty).") },
            [],
            { description: "One link." },
          ),
        ),
        screenshot: screenshot("PNG of the viewport when `screenshot` was true; null otherwise."),
        fetched: timestamp("When the page was fetched (RFC 3339)."),
        durationMs: int("Time to fetch and extract, in milliseconds."),
      },
      [],
      { description: "The page's content and how it was obtained." },
    ),
    example: { url: "https://example.com/pricing", format: "markdown", maxChars: 20000 },
  },
  {
    id: "web.research",
    // Several pages fetched and read in turn.
    deadlineMs: 75_000,
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
    output: fields(
      {
        query: str("The question, as given."),
        findings: list(
          "Passages that answer the question, best first, each with its citations.",
          fields(
            {
              text: str("The finding: a passage quoted from a source."),
              score: num("Relevance to the question, 0..1 (higher is closer)."),
              citations: list(
                "Where it comes from (at least one).",
                fields(
                  {
                    url: str("Source page (after redirects).", { format: "uri" }),
                    title: nullableStr("Source title, or null."),
                    quote: str(
                      "The quoted passage, exactly as in the source's extracted text: `text.slice(start, end)`.",
                    ),
                    start: int("Offset of the quote in the source's extracted text, in UTF-16 code units."),
                    end: int("Offset just past the quote (exclusive), in UTF-16 code units."),
                    contentSha256: sha256("SHA-256 (hex) of the source's extracted text (UTF-8) the offsets refer to."),
                    fetched: timestamp("When the source was fetched (RFC 3339)."),
                  },
                  [],
                  { description: "A citation." },
                ),
              ),
            },
            [],
            { description: "A finding." },
          ),
        ),
        sources: list(
          "Every source the search returned that was tried, in search rank order.",
          fields(
            {
              url: str("Result URL from the search.", { format: "uri" }),
              finalUrl: nullableStr("URL read after redirects; null when it could not be read."),
              title: nullableStr("Title (page or search result), or null."),
              published: nullableStr("Publication date as the page or search result states it, or null."),
              status: nullableInt("HTTP status of the page; null when no response was received."),
              contentSha256: nullable(
                sha256("Hash."),
                "SHA-256 (hex) of the extracted text (UTF-8); null when it could not be read.",
              ),
              fetched: nullableTimestamp("When it was fetched (RFC 3339); null when it could not be read."),
              cited: bool("Whether a finding cites it."),
              error: nullableStr(
                "Why it could not be read (refused by the SSRF guard or robots.txt, timeout, too large, not text); null when read.",
              ),
            },
            [],
            { description: "A source." },
          ),
        ),
        searchProvider: str("Search backend used (e.g. `searxng`)."),
        searched: timestamp("When the search ran (RFC 3339)."),
        durationMs: int("Time the whole research took, in milliseconds."),
      },
      [],
      { description: "Findings with citations, and the sources read." },
    ),
    example: { query: "current VAT rate for digital services in Nigeria", maxSources: 5, recencyDays: 365 },
  },
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
