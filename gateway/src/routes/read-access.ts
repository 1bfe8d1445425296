/**
 * @module gateway/routes/read-access
 * The policy of the read-only developer surfaces (`GET /v1/abilities`, the Markdown docs): the
 * same key authentication as ability calls, and the same per-key rate limit, so discovery is
 * not a free side channel. Throws GantryError (401, 429); callers answer it with sendError.
 */
import type { Request, Response } from "express";
import { authenticate } from "../pipeline/authenticate.ts";
import { enforceRateLimit } from "../pipeline/rate-limit.ts";
import type { GatewayDeps } from "../deps.ts";
import type { KeyRecord } from "../key-cache.ts";

export async function authorizeRead(req: Request, res: Response, deps: GatewayDeps): Promise<KeyRecord> {
  const now = deps.now();
  const key = await authenticate(req, res, deps.keys, now);
  deps.usage.used(key.id, key.source, now);
  await enforceRateLimit(key, res, deps);
  return key;
}
