/**
 * @module web/config
 * The web service's own environment (on top of the kit's base schema), parsed once at start.
 * `WEB_ALLOW_LOOPBACK` is the SSRF guard's test-only escape hatch (kit/src/ssrf.ts): off by default,
 * logged at start and on every request that uses it.
 */
import { BLOB_ENV, defineEnv, type ServiceConfig } from "@gantry/kit";

export const WEB_ENV = defineEnv({
  // Screenshots are blobs (kit/src/blob): BLOB_STORE, BLOB_S3_*.
  ...BLOB_ENV,
  WEB_ALLOW_LOOPBACK: {
    type: "boolean",
    default: false,
    description:
      "tests and local development only: let pages be fetched from loopback addresses (127.0.0.0/8, ::1; any port)",
  },
  WEB_CHROMIUM_PATH: {
    type: "string",
    default: "/usr/bin/chromium",
    description: "Chromium executable driven by playwright-core (the Debian `chromium` package)",
  },
  WEB_BROWSER_CONCURRENCY: {
    type: "integer",
    minimum: 1,
    maximum: 32,
    default: 2,
    description: "pages rendered at once by the browser pool; further pages wait for a slot",
  },
  WEB_BROWSER_IDLE_MS: {
    type: "integer",
    minimum: 0,
    default: 60_000,
    description:
      "Chromium is ended after this long without an open page and started again by the next one (0: keep it running)",
  },
  WEB_READER_IDLE_MS: {
    type: "integer",
    minimum: 0,
    default: 60_000,
    description:
      "each of the page reader's workers (a DOM, Readability, turndown) is ended after this long without a page to read and started again by the next one (0: keep it)",
  },
  WEB_READER_WORKERS: {
    type: "integer",
    minimum: 1,
    maximum: 16,
    // One: on two cores with the whole stack a second reader only competed with the service's own
    // thread and the gateway (web.browse 122-127 pages/s with two, 152-205 with one, same session).
    default: 1,
    description:
      "worker processes reading pages side by side; more help only where the service has cores to spare (a page goes to the least busy, so under light load only the first runs)",
  },
  WEB_DOM: {
    type: "string",
    enum: ["linkedom", "jsdom"],
    default: "linkedom",
    description:
      "the DOM pages are parsed into for Readability and turndown: linkedom (≈ 10× less CPU per page) or jsdom (the spec-complete HTML parser; the same text, Markdown and links on Readability's 130 test pages)",
  },
  WEB_MAX_BYTES: {
    type: "integer",
    minimum: 65_536,
    maximum: 52_428_800,
    default: 5_242_880,
    description: "largest response body read per page, bytes (the rest is cut and the result says truncated)",
  },
  WEB_USER_AGENT: {
    type: "string",
    default: "GantryBot/0.1 (+https://gantry.dev/bot)",
    description: "User-Agent of every request; its first word is the robots.txt product token",
  },
  WEB_SIGNING_KEY: {
    type: "string",
    minLength: 32,
    description:
      "secret (≥ 32 characters) that signs screenshot links; required when NODE_ENV=production, elsewhere unset means a random per-process key (links die with the process)",
  },
  WEB_SCREENSHOT_TTL_SECONDS: {
    type: "integer",
    minimum: 60,
    maximum: 2_592_000,
    default: 86_400,
    description: "how long a screenshot link works (and the screenshot is kept)",
  },
  WEB_OFFICIAL_PAGES: {
    type: "string",
    default: "{}",
    description:
      'the registry of official pages research.verify may capture, as JSON {"<tenant>" | "*": ["https://…/prefix/", …]} (services/web/README.md)',
  },
  WEB_SEARXNG_URL: {
    type: "string",
    description:
      "base URL of a SearXNG instance with the JSON format enabled (web.research, research.verify); unset: those answer 501",
  },
  WEB_SEARCH_TIMEOUT_MS: {
    type: "integer",
    minimum: 500,
    maximum: 60_000,
    default: 10_000,
    description: "time allowed for one search request",
  },
});

export type WebConfig = ServiceConfig<typeof WEB_ENV>;
