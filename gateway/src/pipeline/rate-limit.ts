/**
 * @module gateway/pipeline/rate-limit
 * The per-key rate-limit step, shared by ability calls, MCP tool calls and the read routes
 * (discovery, docs), so that no surface is a way around the limit: the key's own limit or the
 * default, the RateLimit headers, 429 when spent.
 */
import { GantryError, type KeyRecord } from "@gantry/kit";
import { rateLimitHeaders, type RateLimitPolicy } from "../rate-limit/index.ts";
import type { GatewayDeps } from "../deps.ts";
import type { ResponseHeaders } from "./outcome.ts";

export function keyRateLimit(key: KeyRecord, fallback: RateLimitPolicy): RateLimitPolicy {
  return key.rate_limit ? { limit: key.rate_limit.limit, windowSeconds: key.rate_limit.window_seconds } : fallback;
}

/**
 * Counts one request against the key; returns the policy applied. The RateLimit headers go into
 * `headers` before a 429 is thrown, because the refusal must carry them too.
 */
export async function enforceRateLimit(
  key: KeyRecord,
  deps: Pick<GatewayDeps, "defaultRateLimit" | "limiter" | "metrics">,
  headers: ResponseHeaders,
): Promise<RateLimitPolicy> {
  const policy = keyRateLimit(key, deps.defaultRateLimit);
  const decision = await deps.limiter.take(key.id, policy);
  Object.assign(headers, rateLimitHeaders(policy, decision));
  if (!decision.allowed) {
    deps.metrics.rateLimited.inc();
    throw new GantryError(
      "rate_limited",
      `Rate limit of ${policy.limit} requests per ${policy.windowSeconds} s exceeded for this key.`,
      {
        retryAfterMs: Math.max(1, decision.resetMs),
      },
    );
  }
  return policy;
}
