/**
 * @module web/context
 * What every handler of the web service receives as `ctx`, built once by `init` in service.ts: the
 * Prisma client (captures of official pages), the configuration, the registry of official pages,
 * the SSRF guard every page fetch goes through, the robots.txt cache, the browser pool (Chromium
 * started lazily, its traffic through the guard's filtering proxy), the page reader (extraction in
 * a worker process that ends when idle), the search provider
 * (null when none is configured), the blob store screenshots are kept in, the logger and the clock.
 */
import { abilityOf, type BlobStore, type Clock, type LinkSigner, type Logger, type SsrfGuard } from "@gantry/kit";
import type { BrowserPool } from "./browser.ts";
import type { WebConfig } from "./config.ts";
import type { PageReader } from "./reader.ts";
import type { PrismaClient } from "./db.ts";
import type { Registry } from "./registry.ts";
import type { RobotsCache } from "./robots.ts";
import type { SearchProvider } from "./search.ts";

export interface Context {
  db: PrismaClient;
  config: WebConfig;
  /** Official pages research.verify may capture, per tenant (WEB_OFFICIAL_PAGES). */
  registry: Registry;
  guard: SsrfGuard;
  robots: RobotsCache;
  browser: BrowserPool;
  /** HTML to clean content, in worker processes (WEB_READER_WORKERS, WEB_READER_IDLE_MS, WEB_DOM). */
  reader: PageReader;
  search: SearchProvider | null;
  /** Signs and checks screenshot links (WEB_SIGNING_KEY). */
  signer: LinkSigner;
  /** Where screenshots' bytes are kept (kit/src/blob). */
  blobs: BlobStore;
  log: Logger;
  now: Clock;
}

/** `ability(id, run)`: declares the handler of one ability (one file per ability under abilities/). */
export const ability = abilityOf<Context>();
