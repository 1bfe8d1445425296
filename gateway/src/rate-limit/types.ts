/**
 * @module gateway/rate-limit/types
 * A per-key fixed-window limiter. Fixed windows are exact and cheap (one counter per key per window)
 * and their state is what the RateLimit headers report.
 */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimiter {
  readonly kind: "memory" | "redis";
  /** The in-memory limiter answers at once, so it makes no promise; Redis answers later. */
  take(keyId: string, policy: RateLimitPolicy): RateLimitDecision | Promise<RateLimitDecision>;
  close(): Promise<void>;
}
