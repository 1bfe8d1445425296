/**
 * @module gateway/main
 * Starts the gateway: config, NATS, key cache (with revocation notices), rate limiter, dispatcher
 * (gRPC executors and the gateway's own), live status, audit publisher, HTTP server, graceful
 * shutdown. Every shared piece is built here once and passed on in GatewayDeps.
 */
import { clientAddress } from "./client-address.ts";
import { AuthFailures } from "./pipeline/auth-failures.ts";
import { createServer, type Server } from "node:http";
import { KEYS_PROTO } from "@gantry/proto/paths";
import {
  AREA_SERVICES,
  HealthClient,
  STREAMS,
  SUBJECTS,
  connectNats,
  createClock,
  createLogger,
  decodeJson,
  ensureStream,
  type IngressClient,
  ingressClient,
  loadCallKeys,
  loadGrpcTls,
  useGrpcTls,
  makeClient,
  startTelemetry,
  warmValidators,
  type AreaService,
} from "@gantry/kit";
import { loadGatewayConfig, type GatewayConfig } from "./config.ts";
import { createApp } from "./app.ts";
import { abilityFastPath } from "./routes/abilities.ts";
import { KeyCache } from "./key-cache.ts";
import { createRateLimiter } from "./rate-limit/index.ts";
import { Dispatcher } from "./dispatch.ts";
import { LiveStatus } from "./discovery/live-status.ts";
import { MetaExecutor, metaHandlers } from "./meta/index.ts";
import { AuditPublisher } from "./audit.ts";
import { createMetrics } from "./metrics.ts";
import { UsageReporter } from "./usage.ts";
import { PermitGate, parseRunRequired } from "./pipeline/run-permit.ts";
import { version } from "./version.ts";
import type { GatewayDeps } from "./deps.ts";

export async function startGateway(config: GatewayConfig = loadGatewayConfig()) {
  const log = createLogger("gateway", config.LOG_LEVEL);
  // Off unless the OTEL_* variables ask for it (kit/telemetry); started before any connection opens.
  const stopTelemetry = await startTelemetry("gateway");
  if (stopTelemetry) log.info("OpenTelemetry on (OTEL_* variables)");
  // Date.now, unless NODE_ENV=test and GANTRY_TEST_CLOCK_FILE (kit/src/clock.ts; refuses to start otherwise).
  const now = createClock();
  const addrs = Object.fromEntries(AREA_SERVICES.map((s) => [s.name, String(config[s.addrEnv])])) as Record<
    AreaService,
    string
  >;
  const nats = await connectNats(config.NATS_URL, "gateway", log);
  await ensureStream(nats.jsm, {
    ...STREAMS.AUDIT,
    subjects: [...STREAMS.AUDIT.subjects],
    max_age: 7 * 24 * 3600 * 1e9,
  });

  // Refuses to start without the keys that sign its calls to the services (kit/call-auth).
  const callKeys = loadCallKeys("gateway", config);
  if (!callKeys.signer("keys")) log.warn("GANTRY_CALL_AUTH=off and no call keys: calls to the services go unsigned");
  useGrpcTls(loadGrpcTls(config));
  const keysClient = makeClient(KEYS_PROTO, "gantry.keys.v1.KeyResolver", addrs.keys, {
    signer: callKeys.signer("keys"),
  });
  const keys = new KeyCache(keysClient, config.KEY_CACHE_TTL_MS, log, now);
  // Revocation and rotation notices evict at once; the 30 s TTL is only the fallback.
  const keySub = nats.nc.subscribe("keys.key.*", {
    callback: (err, msg) => {
      if (err) return;
      try {
        const notice = decodeJson<{ keyId?: string }>(msg.data);
        if (msg.subject === SUBJECTS.keyIssued) keys.forgetUnknown();
        else if (notice.keyId) {
          const n = keys.evictKeyId(notice.keyId);
          log.info({ subject: msg.subject, keyId: notice.keyId, evicted: n }, "key notice");
        }
      } catch {
        log.warn({ subject: msg.subject }, "unreadable key notice");
      }
    },
  });

  const limiter = await createRateLimiter(config.REDIS_URL, log);
  const ver = version(config.GANTRY_BUILD);
  const dispatcher = new Dispatcher(addrs, config.UPSTREAM_TIMEOUT_MS, config.GANTRY_CHECK_RESULTS, callKeys);
  // Live status asks the dispatcher what each owner has wired; capability.discover, which the
  // dispatcher runs, asks live status: so the gateway's own executor is mounted once both exist.
  const liveStatus = new LiveStatus(dispatcher, now);
  dispatcher.mount(
    "gateway",
    new MetaExecutor(metaHandlers, { version: ver, maxBodyBytes: config.MAX_BODY_BYTES, liveStatus }),
  );
  const audit = new AuditPublisher(nats, log);
  const metrics = createMetrics();
  const usage = new UsageReporter(keysClient, log);
  const health = new Map(AREA_SERVICES.map((s) => [s.name, new HealthClient(addrs[s.name])]));
  const ingressClients = new Map<AreaService, IngressClient>();
  const ingress = (service: AreaService) => {
    let client = ingressClients.get(service);
    if (!client) {
      client = ingressClient(addrs[service], callKeys.signer(service));
      ingressClients.set(service, client);
    }
    return client;
  };
  const permits = new PermitGate(
    addrs.trust,
    config.UPSTREAM_TIMEOUT_MS,
    parseRunRequired(config.GANTRY_RUN_REQUIRED),
    callKeys.signer("trust"),
  );
  const defaultRateLimit = { limit: config.RATE_LIMIT_DEFAULT, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS };

  const deps: GatewayDeps = {
    config,
    log,
    version: ver,
    keys,
    limiter,
    authFailures: new AuthFailures(limiter, config.AUTH_FAILURES_PER_MINUTE),
    clientAddress: clientAddress(config.TRUSTED_PROXIES),
    defaultRateLimit,
    dispatcher,
    liveStatus,
    audit,
    metrics,
    usage,
    health,
    ingress,
    permits,
    now,
  };

  warmValidators();
  const app = createApp(deps);
  const fastPath = abilityFastPath(deps);
  const server: Server = createServer((req, res) => {
    if (!fastPath(req, res)) app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  log.info({ port, version: ver, rateLimiter: limiter.kind }, "gateway listening");

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, 5_000).unref();
      });
      usage.stop();
      await usage.flush();
      await audit.flush();
      keySub.unsubscribe();
      await limiter.close();
      dispatcher.close();
      permits.close();
      for (const h of health.values()) h.close();
      for (const c of ingressClients.values()) c.close();
      keysClient.close();
      await nats.nc.drain().catch(() => {});
      await stopTelemetry?.().catch((err) => log.warn({ err: String(err) }, "telemetry flush failed"));
      log.info("stopped");
    })());
  return { port, deps, stop };
}

if (import.meta.main) {
  startGateway().then(
    ({ stop }) => {
      const onSignal = () => stop().then(() => process.exit(0));
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
    },
    (err) => {
      process.stderr.write(`gateway: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
