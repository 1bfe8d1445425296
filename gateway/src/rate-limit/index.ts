/**
 * @module gateway/rate-limit
 * Chooses the limiter and turns a decision into the RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` and `RateLimit`).
 */
import type { Logger } from "@gantry/kit";
import { MemoryRateLimiter } from "./memory.ts";
import { RedisRateLimiter } from "./redis.ts";
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from "./types.ts";

export type { RateLimitDecision, RateLimiter, RateLimitPolicy };

export async function createRateLimiter(redisUrl: string | undefined, log: Logger): Promise<RateLimiter> {
  if (!redisUrl) return new MemoryRateLimiter();
  const limiter = new RedisRateLimiter(redisUrl, log);
  await limiter.ready();
  return limiter;
}

export function rateLimitHeaders(policy: RateLimitPolicy, d: RateLimitDecision): Record<string, string> {
  return {
    "RateLimit-Policy": `"per-key";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"per-key";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`,
  };
}
