/**
 * @module gateway/rate-limit/redis
 * Redis limiter: one atomic script per request (INCR, set the expiry on the window's first hit,
 * read the remaining time), so the count is exact however many gateways share the Redis. If Redis
 * is unreachable the gateway falls back to its in-memory limiter rather than refusing all traffic
 * or letting it through unlimited, and says so in the log.
 */
import { Redis } from "ioredis";
import type { Logger } from "@gantry/kit";
import { MemoryRateLimiter } from "./memory.ts";
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from "./types.ts";

const SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

export class RedisRateLimiter implements RateLimiter {
  readonly kind = "redis" as const;
  private readonly redis: Redis;
  private readonly fallback = new MemoryRateLimiter();
  private readonly log: Logger;
  private degraded = false;

  constructor(url: string, log: Logger) {
    this.log = log;
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      lazyConnect: false,
      connectTimeout: 2_000,
    });
    this.redis.on("error", () => {});
    this.redis.defineCommand("gantryTake", { numberOfKeys: 1, lua: SCRIPT });
  }

  async take(keyId: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
    const windowMs = policy.windowSeconds * 1000;
    try {
      const [count, ttl] = (await (
        this.redis as unknown as { gantryTake(key: string, ms: number): Promise<[number, number]> }
      ).gantryTake(`gantry:rl:${keyId}:${policy.limit}:${policy.windowSeconds}`, windowMs)) as [number, number];
      if (this.degraded) {
        this.degraded = false;
        this.log.info("redis rate limiter recovered");
      }
      return {
        allowed: count <= policy.limit,
        limit: policy.limit,
        remaining: Math.max(0, policy.limit - count),
        resetMs: Math.max(0, ttl),
      };
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn({ err: String(err) }, "redis rate limiter unavailable; limiting per gateway until it recovers");
      }
      return this.fallback.take(keyId, policy);
    }
  }

  async ready(): Promise<void> {
    if (this.redis.status === "ready") return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 3_000);
      this.redis.once("ready", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
