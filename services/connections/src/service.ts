/**
 * @module connections/service
 * The connections service: a tenant's external-account connections with actor-bound OAuth consent
 * (authorization code + PKCE + state, through oauth4webapi), credentials encrypted at rest (envelope
 * encryption, src/crypto.ts), race-free token refresh (ahead of expiry by a sweep, and on use), the
 * CredentialResolver RPC that payments and content ask for the tenant's or the platform's
 * credential, connection events on NATS (stream CONNECTIONS), and tool execution against providers'
 * APIs (src/execute.ts) through the kit's SSRF guard built here (`ctx.guard`).
 *
 * `init` checks the configuration (master keys, providers, platform accounts, the toolkit registry
 * and its base-URL overrides) before anything starts, so a bad entry stops the process with a
 * message naming it. It runs in system scope, and so does the sweep it starts (refresh ahead of
 * expiry, abandoned consents); ability calls run in the caller's tenant scope, and the resolver
 * scopes each call to the tenant it names.
 */
import {
  createClock,
  defineService,
  ensureStream,
  prismaClient,
  SsrfGuard,
  STREAMS,
  startOutboxRelay,
} from "@gantry/kit";
import {
  CONNECTIONS_ENV,
  loadMasterKeys,
  parsePlatformAccounts,
  parseProviders,
  parseToolkitBaseUrls,
} from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient, SCHEMA } from "./db.ts";
import { openDirectory } from "./directory.ts";
import { OAuthProvider } from "./oauth.ts";
import { startRefreshSweep } from "./refresh.ts";
import { resolverService } from "./resolver.ts";
import { ToolMeaning } from "./tool-meaning.ts";
import { DEFAULT_TOOLKITS_DIR, loadRegistry } from "./toolkits.ts";

export default defineService({
  name: "connections",
  env: CONNECTIONS_ENV,
  init: async (deps): Promise<Context> => {
    const { config, log, nats, pool } = deps;
    if (!pool) throw new Error("connections started without a database (DATABASE_URL)");
    // All fail fast, before anything starts.
    const keys = loadMasterKeys(config);
    const providerConfigs = parseProviders(config.CONNECTIONS_PROVIDERS, config.CONNECTIONS_ALLOW_HTTP_LOOPBACK);
    const platform = parsePlatformAccounts(config.CONNECTIONS_PLATFORM_ACCOUNTS);
    const baseUrls = parseToolkitBaseUrls(config.CONNECTIONS_TOOLKIT_BASE_URLS, config.CONNECTIONS_ALLOW_HTTP_LOOPBACK);
    const directory = openDirectory(config.CONNECTIONS_DIRECTORY, config.CONNECTIONS_DIRECTORY_DIR, baseUrls);
    const toolkits = loadRegistry(config.CONNECTIONS_TOOLKITS_DIR ?? DEFAULT_TOOLKITS_DIR, baseUrls, directory);
    const now = createClock({ NODE_ENV: config.NODE_ENV, GANTRY_TEST_CLOCK_FILE: config.GANTRY_TEST_CLOCK_FILE });
    const options = {
      allowHttpLoopback: config.CONNECTIONS_ALLOW_HTTP_LOOPBACK,
      timeoutMs: config.CONNECTIONS_PROVIDER_TIMEOUT_MS,
    };
    const providers = new Map([...providerConfigs].map(([service, c]) => [service, new OAuthProvider(c, options)]));
    if (keys.development) {
      log.warn(
        `CONNECTIONS_MASTER_KEY is unset: credentials are encrypted with the PUBLIC DEVELOPMENT KEY (NODE_ENV=${config.NODE_ENV}). Anyone can decrypt them; set CONNECTIONS_MASTER_KEY before storing a real credential.`,
      );
    }
    if (config.CONNECTIONS_ALLOW_HTTP_LOOPBACK) {
      log.warn(
        "CONNECTIONS_ALLOW_HTTP_LOOPBACK is on: providers may be plain http on loopback (tests and local development only)",
      );
    }
    log.info(
      {
        providers: [...providers.keys()],
        platformAccounts: [...platform.keys()],
        toolkits: [...toolkits.toolkits.keys()],
        directory: directory?.dir ?? "off",
        masterKeyVersion: keys.current.version,
        readableKeyVersions: [...keys.byVersion.keys()].sort((a, b) => a - b),
      },
      "connections configured",
    );
    await ensureStream(nats.jsm, { ...STREAMS.CONNECTIONS, subjects: [...STREAMS.CONNECTIONS.subjects] });
    const ctx: Context = {
      db: prismaClient(deps, PrismaClient),
      config,
      keys,
      providers,
      platform,
      toolkits,
      meaning: config.CONNECTIONS_TOOL_MEANING === "on" ? new ToolMeaning({ log }) : null,
      // Loopback (and any port) only where http to loopback providers is allowed: tests, local development.
      guard: new SsrfGuard({
        allowLoopback: config.CONNECTIONS_ALLOW_HTTP_LOOPBACK,
        timeoutMs: config.CONNECTIONS_PROVIDER_TIMEOUT_MS,
        maxBytes: config.CONNECTIONS_TOOL_MAX_RESPONSE_BYTES,
        maxRedirects: 3,
        log,
      }),
      nats,
      outbox: startOutboxRelay({ pool, schema: SCHEMA, nats, log }),
      log,
      now,
      refreshing: new Map(),
      background: { stop: async () => {} },
    };
    // Started last, so a failure above leaves nothing running.
    ctx.background = startRefreshSweep(ctx, config.CONNECTIONS_REFRESH_SWEEP_SECONDS * 1000);
    return ctx;
  },
  grpcServices: (ctx) => [resolverService(ctx)],
  close: async (ctx) => {
    await ctx.background.stop();
    await ctx.meaning?.close();
    await ctx.outbox.stop();
    await ctx.db.$disconnect();
  },
});
