/**
 * @module gateway/meta/types
 * Meta abilities are answered inside the gateway: they describe the gateway itself.
 */
import type { CallContext } from "@gantry/kit";
import type { RateLimitPolicy } from "../rate-limit/types.ts";
import type { GatewayDeps } from "../deps.ts";

export interface MetaEnv {
  version: string;
  baseUrl: string;
  rateLimit: RateLimitPolicy;
  maxBodyBytes: number;
}

/** `deps` gives meta abilities what the gateway knows (e.g. the owners' live status for capability.discover). */
export type MetaHandler = (input: Record<string, unknown>, call: CallContext, env: MetaEnv, deps: GatewayDeps) => Promise<unknown>;
