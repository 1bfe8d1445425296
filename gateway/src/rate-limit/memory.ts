/**
 * @module gateway/rate-limit/memory
 * In-process limiter: exact for a single gateway. With several replicas, set REDIS_URL.
 */
import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from "./types.ts";

interface Window {
  start: number;
  count: number;
  windowMs: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = "memory" as const;
  private readonly windows = new Map<string, Window>();
  private readonly now: () => number;
  private sweepAt = 0;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  take(keyId: string, policy: RateLimitPolicy): RateLimitDecision {
    const now = this.now();
    const windowMs = policy.windowSeconds * 1000;
    if (now > this.sweepAt) this.sweep(now);
    const bucket = `${keyId}:${policy.limit}:${policy.windowSeconds}`;
    let w = this.windows.get(bucket);
    if (!w || now - w.start >= windowMs) {
      w = { start: now, count: 0, windowMs };
      this.windows.set(bucket, w);
    }
    w.count++;
    const resetMs = Math.max(0, w.start + windowMs - now);
    return {
      allowed: w.count <= policy.limit,
      limit: policy.limit,
      remaining: Math.max(0, policy.limit - w.count),
      resetMs,
    };
  }

  /** Bounded memory: expired windows are dropped at most once a second. */
  private sweep(now: number): void {
    this.sweepAt = now + 1_000;
    for (const [k, w] of this.windows) if (now - w.start >= w.windowMs) this.windows.delete(k);
  }

  async close(): Promise<void> {}
}
