/**
 * @module gateway/pipeline/auth-failures
 * A limit on failed authentication per client address (AUTH_FAILURES_PER_MINUTE): made-up keys
 * with a valid checksum each cost a lookup in the keys service, so an address past its budget gets
 * 429 with `retryAfterMs` instead, and until its window ends its requests are refused before any
 * lookup. The count is the rate limiter's (Redis when configured, so shared by every gateway); the
 * refusal before lookup is remembered by each gateway in a bounded LRU. Keys that authenticate are
 * never counted, and a key the gateway already holds as valid is answered even from a refused
 * address (authenticate.ts), so clients sharing an address are not locked out by one of them.
 */
import { GantryError, Lru } from "@gantry/kit";
import type { RateLimiter } from "../rate-limit/types.ts";

export class AuthFailures {
  readonly #limiter: RateLimiter;
  readonly #limit: number;
  readonly #now: () => number;
  /** Addresses over their budget, and until when. */
  readonly #blocked = new Lru<string, number>(10_000);

  constructor(limiter: RateLimiter, perMinute: number, now: () => number = Date.now) {
    this.#limiter = limiter;
    this.#limit = perMinute;
    this.#now = now;
  }

  /** Throws 429 when `address` is over its budget of failures (before any lookup is made for it). */
  refuseIfBlocked(address: string): void {
    const until = this.#blocked.get(address);
    if (until === undefined) return;
    const left = until - this.#now();
    if (left > 0) throw this.#refusal(left);
    this.#blocked.delete(address);
  }

  /** Counts one failure of `address`; throws 429 (instead of the 401) once it is over budget. */
  async failed(address: string): Promise<void> {
    const decision = await this.#limiter.take(`authfail:${address}`, { limit: this.#limit, windowSeconds: 60 });
    if (decision.allowed) return;
    this.#blocked.set(address, this.#now() + decision.resetMs);
    throw this.#refusal(decision.resetMs);
  }

  #refusal(retryAfterMs: number): GantryError {
    return new GantryError("rate_limited", "Too many failed authentications from this address.", {
      reason: "Check the API key you send; after the wait, requests with a valid key are answered.",
      retryAfterMs,
    });
  }
}
