/**
 * @module gateway/config
 * The gateway's environment, parsed once at start by the kit's config loader.
 */
import {
  BASE_ENV,
  CALL_AUTH_ENV,
  type ConfigOf,
  GATEWAY_DEFAULT_PORT,
  GRPC_TLS_ENV,
  loadConfig,
  RATE_LIMIT_ENV,
  serviceAddrEnv,
} from "@gantry/kit";

export const GATEWAY_ENV = {
  PORT: {
    type: "integer",
    minimum: 0,
    maximum: 65535,
    default: GATEWAY_DEFAULT_PORT,
    description: "HTTP port of the gateway",
  },
  HOST: { type: "string", default: "0.0.0.0", description: "interface the HTTP server binds" },
  NATS_URL: BASE_ENV.NATS_URL,
  LOG_LEVEL: BASE_ENV.LOG_LEVEL,
  REDIS_URL: {
    type: "string",
    pattern: "^rediss?://",
    description: "Redis URL; when set, rate limits are exact across gateway replicas",
  },
  PUBLIC_URL: {
    type: "string",
    pattern: "^https?://",
    description: "external base URL used in docs links (default: from the request's Host)",
  },
  GANTRY_BUILD: {
    type: "string",
    pattern: "^[0-9A-Za-z.-]+$",
    description: "build suffix of the version (default: git commit, else 'dev')",
  },
  MAX_BODY_BYTES: {
    type: "integer",
    minimum: 1024,
    maximum: 16777216,
    default: 1048576,
    description: "largest request body accepted; larger → 413",
  },
  ...RATE_LIMIT_ENV,
  TRUSTED_PROXIES: {
    type: "string",
    default: "",
    description:
      "proxy hops whose X-Forwarded-For is believed, comma-separated addresses, CIDRs or loopback/linklocal/uniquelocal (default: none, the socket's address)",
  },
  AUTH_FAILURES_PER_MINUTE: {
    type: "integer",
    minimum: 1,
    maximum: 100000,
    default: 60,
    description: "failed authentications per client address per minute before that address gets 429",
  },
  KEY_CACHE_TTL_MS: {
    type: "integer",
    minimum: 0,
    maximum: 30000,
    default: 30000,
    description: "how long a resolved key is cached (spec: at most 30 s)",
  },
  UPSTREAM_TIMEOUT_MS: {
    type: "integer",
    minimum: 100,
    maximum: 300000,
    default: 30000,
    description: "deadline of a gRPC call to an area service",
  },
  GANTRY_CHECK_RESULTS: {
    type: "boolean",
    default: false,
    description: "check every result against its ability's output schema (tests; a mismatch answers 500)",
  },
  GANTRY_RUN_REQUIRED: {
    type: "string",
    default: "{}",
    description:
      'abilities each tenant may call only under a trust run (context.runId), as JSON {"<tenant>": ["payout.*", "message.send"]}; applies to its sub-tenants too',
  },
  ...serviceAddrEnv(),
  // Every call to a service is signed as the gateway's (kit/call-auth), over mTLS when set (kit/grpc-tls).
  ...CALL_AUTH_ENV,
  ...GRPC_TLS_ENV,
} as const;

/** The gateway's configuration, typed from GATEWAY_ENV. */
export type GatewayConfig = ConfigOf<typeof GATEWAY_ENV>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig("gateway", GATEWAY_ENV, [], env);
}
