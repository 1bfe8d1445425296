/**
 * @module gateway/routes/read-access
 * The policy of the read-only developer surfaces (`GET /v1/abilities`, the Markdown docs): the
 * same key authentication as ability calls, and the same per-key rate limit, so discovery is
 * not a free side channel. Throws GantryError (401, 429); callers answer it with sendError.
 */
import type { Request, Response } from "express";
import { authenticate } from "../pipeline/authenticate.ts";
import { enforceRateLimit } from "../pipeline/rate-limit.ts";
import type { ResponseHeaders } from "../pipeline/outcome.ts";
import { setHeaders } from "../respond.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

export async function authorizeRead(req: Request, res: Response, deps: GatewayDeps): Promise<KeyRecord> {
  const headers: ResponseHeaders = {};
  try {
    const now = deps.now();
    const key = await authenticate(req.headers.authorization, deps.keys, now, headers);
    deps.usage.used(key.id, key.source, now);
    await enforceRateLimit(key, deps, headers);
    return key;
  } finally {
    // Refusals carry them too (a 429's RateLimit headers say when to come back).
    setHeaders(res, headers);
  }
}
