/**
 * @module web/service
 * The web service: reads public pages for agents (HTTP first, headless Chromium when a page needs
 * JavaScript), researches questions over a search provider, and checks pages in a real browser.
 * Every fetch of a caller-given URL goes through the kit's one SSRF guard — over HTTP directly, and
 * for the browser through the guard's filtering proxy (kit/src/ssrf-proxy.ts). Captures of registered
 * official pages (research.verify) are stored per tenant in the schema `web`.
 */
import {
  createBlobStore,
  createClock,
  defineService,
  ingressService,
  LinkSigner,
  linkSigningKey,
  prismaClient,
  SsrfGuard,
} from "@gantry/kit";
import { needsConfiguration } from "@gantry/kit/ability-needs.ts";
import { BrowserPool } from "./browser.ts";
import { WEB_ENV } from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { pageReader } from "./reader.ts";
import { parseRegistry } from "./registry.ts";
import { RobotsCache } from "./robots.ts";
import { filesIngress } from "./screenshots.ts";
import { SearxngProvider } from "./search.ts";

export default defineService({
  name: "web",
  env: WEB_ENV,
  init: async (deps): Promise<Context> => {
    const { config, log } = deps;
    // Fails fast, before anything starts.
    const registry = parseRegistry(config.WEB_OFFICIAL_PAGES);
    if (config.WEB_ALLOW_LOOPBACK)
      log.warn(
        "WEB_ALLOW_LOOPBACK is on: pages may be fetched from loopback addresses (tests and local development only)",
      );
    const guard = new SsrfGuard({ allowLoopback: config.WEB_ALLOW_LOOPBACK, maxBytes: config.WEB_MAX_BYTES, log });
    const search = config.WEB_SEARXNG_URL
      ? new SearxngProvider(config.WEB_SEARXNG_URL, config.WEB_SEARCH_TIMEOUT_MS, config.WEB_USER_AGENT)
      : null;
    const signing = linkSigningKey("web", "WEB_SIGNING_KEY", config.WEB_SIGNING_KEY, config.NODE_ENV);
    if (signing.random)
      log.warn(
        "WEB_SIGNING_KEY is unset: screenshot links are signed with a random per-process key (they stop working when the process ends and on other replicas)",
      );
    const now = createClock();
    const blobs = await createBlobStore({ config, pool: deps.pool, schema: "web", now, log });
    log.info(
      {
        searchProvider: search?.name ?? null,
        blobs: blobs.driver,
        chromium: config.WEB_CHROMIUM_PATH,
        officialPages: [...registry.keys()],
      },
      "web configured",
    );
    return {
      db: prismaClient(deps, PrismaClient),
      config,
      registry,
      guard,
      robots: new RobotsCache(guard, config.WEB_USER_AGENT),
      browser: new BrowserPool({
        executablePath: config.WEB_CHROMIUM_PATH,
        concurrency: config.WEB_BROWSER_CONCURRENCY,
        guard,
        userAgent: config.WEB_USER_AGENT,
        log,
        idleMs: config.WEB_BROWSER_IDLE_MS,
      }),
      reader: pageReader(config.WEB_READER_IDLE_MS, { workers: config.WEB_READER_WORKERS, dom: config.WEB_DOM }),
      search,
      signer: new LinkSigner(signing.key),
      blobs,
      log,
      now,
    };
  },
  // Screenshot links: GET /v1/files/web/screenshots/<id>.png through the gateway.
  grpcServices: (ctx) => [ingressService(ctx.log, (req) => filesIngress(ctx, req))],
  // Without a search provider these answer 501 (research.ts); discovery says so instead of "live".
  needs: (ctx) =>
    ctx.search
      ? []
      : [
          needsConfiguration(
            "web.research",
            ["WEB_SEARXNG_URL"],
            "No search provider is configured: set WEB_SEARXNG_URL on the web service to a SearXNG instance.",
          ),
          needsConfiguration(
            "research.verify",
            ["WEB_SEARXNG_URL"],
            "Searching (action search) needs a search provider: set WEB_SEARXNG_URL on the web service to a SearXNG instance; action capture works.",
            "action search",
          ),
        ],
  close: async (ctx) => {
    await ctx.browser.close();
    await ctx.reader.close();
    await ctx.guard.close();
    await ctx.db.$disconnect();
  },
});
