/**
 * @module catalogue/web/web
 * The web service's abilities of the `web` area (Web: headless browsing and research).
 * `proto/catalogue/web.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { bool, enumOf, fields, int, list, nullableStr, nullableTimestamp, num, str, timestamp } from "../output.ts";
import { array, flag, integer, nullable, object, oneOfValues, text, url } from "../schema.ts";
import { timeoutMs, viewport, sha256, nullableInt, screenshot } from "./shared.ts";

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
] as const satisfies readonly AbilityEntry[];
