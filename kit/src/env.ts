/**
 * @module kit/env
 * Environment variables more than one process reads, declared once: the base every service reads,
 * the addresses of the area services, and the default rate limit (the gateway applies it; the keys
 * service bounds what a key without its own limit may issue by it).
 */
import { defineEnv, type EnvVar } from "./config.ts";
import { AREA_SERVICES, type AddrEnv } from "./topology.ts";

export const BASE_ENV = defineEnv({
  NODE_ENV: {
    type: "string",
    description:
      "`production` (the image's default), `development` or `test`; production refuses development fallbacks (a missing CONNECTIONS_MASTER_KEY, TRUST_SIGNING_KEY, CONTENT_SIGNING_KEY or WEB_SIGNING_KEY)",
  },
  GRPC_HOST: { type: "string", default: "0.0.0.0", description: "interface the gRPC server binds" },
  DATABASE_URL: {
    type: "string",
    pattern: "^postgres(ql)?://",
    description: "Postgres URL; the service uses its own schema",
  },
  NATS_URL: { type: "string", default: "nats://127.0.0.1:4222", description: "NATS server URL(s), comma-separated" },
  LOG_LEVEL: {
    type: "string",
    enum: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    default: "info",
    description: "log level",
  },
});

export const RATE_LIMIT_ENV = defineEnv({
  RATE_LIMIT_DEFAULT: {
    type: "integer",
    minimum: 1,
    default: 600,
    description: "requests per window for keys without their own limit",
  },
  RATE_LIMIT_WINDOW_SECONDS: {
    type: "integer",
    minimum: 1,
    maximum: 86400,
    default: 60,
    description: "length of the default rate-limit window",
  },
});

type AddrVar = EnvVar & { type: "string"; default: string };

/** `<SERVICE>_ADDR` for every area service, defaulting to its local port. */
export function serviceAddrEnv(): Record<AddrEnv, AddrVar> {
  const out = {} as Record<AddrEnv, AddrVar>;
  for (const s of AREA_SERVICES) {
    out[s.addrEnv] = {
      type: "string",
      default: `127.0.0.1:${s.defaultPort}`,
      description: `host:port of the ${s.name} service`,
    };
  }
  return out;
}
