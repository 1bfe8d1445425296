/**
 * @module gateway/deps
 * Everything a request handler needs, assembled once in main.ts and passed explicitly so tests can
 * assemble it differently and no module keeps hidden process-wide state.
 */
import type { IncomingMessage } from "node:http";
import type { AuthFailures } from "./pipeline/auth-failures.ts";
import type { Logger } from "@gantry/kit";
import type { HealthClient, AreaService, IngressClient } from "@gantry/kit";
import type { GatewayConfig } from "./config.ts";
import type { KeyCache } from "./key-cache.ts";
import type { RateLimiter, RateLimitPolicy } from "./rate-limit/index.ts";
import type { Dispatcher } from "./dispatch.ts";
import type { AuditPublisher } from "./audit.ts";
import type { Metrics } from "./metrics.ts";
import type { UsageReporter } from "./usage.ts";
import type { LiveStatus } from "./discovery/live-status.ts";
import type { PermitGate } from "./pipeline/run-permit.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  log: Logger;
  version: string;
  keys: KeyCache;
  limiter: RateLimiter;
  /** Failed authentications per client address (pipeline/auth-failures.ts). */
  authFailures: AuthFailures;
  /** The client's address by TRUSTED_PROXIES (client-address.ts). */
  clientAddress: (req: IncomingMessage) => string;
  defaultRateLimit: RateLimitPolicy;
  dispatcher: Dispatcher;
  liveStatus: LiveStatus;
  audit: AuditPublisher;
  metrics: Metrics;
  usage: UsageReporter;
  health: Map<AreaService, HealthClient>;
  /** The trust service's permit gate: calls carrying `context.runId` (pipeline/run-permit.ts). */
  permits: PermitGate;
  /** The HttpIngress client of a service (webhooks, signed file links), made on first use. */
  ingress: (service: AreaService) => IngressClient;
  now: () => number;
}
