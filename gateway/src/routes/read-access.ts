/**
 * @module gateway/routes/read-access
 * The policy of the read-only developer surfaces (`GET /v1/abilities`, the Markdown docs): the
 * same key authentication as ability calls, and the same per-key rate limit, so discovery is
 * not a free side channel. Throws GantryError (401, 429); callers answer it with sendError.
 */
import type { Request, Response } from "express";
import { GantryError } from "@gantry/kit";
import { authenticate } from "../pipeline/authenticate.ts";
import { setRateLimitHeaders } from "../rate-limit/index.ts";
import { keyRateLimit } from "../discovery/abilities.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

export async function authorizeRead(req: Request, res: Response, deps: GatewayDeps): Promise<KeyRecord> {
  const now = deps.now();
  const key = await authenticate(req, res, deps.keys, now);
  deps.usage.used(key.id, key.source, now);
  const policy = keyRateLimit(key, deps.defaultRateLimit);
  const decision = await deps.limiter.take(key.id, policy);
  setRateLimitHeaders(res, policy, decision);
  if (!decision.allowed) {
    deps.metrics.rateLimited.inc();
    throw new GantryError("rate_limited", `Rate limit of ${policy.limit} requests per ${policy.windowSeconds} s exceeded for this key.`, {
      retryAfterMs: Math.max(1, decision.resetMs),
    });
  }
  return key;
}
