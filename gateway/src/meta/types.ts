/**
 * @module gateway/meta/types
 * Meta abilities are answered inside the gateway: they describe the gateway itself.
 */
import type { CallContext } from "@gantry/kit";
import type { RateLimitPolicy } from "../rate-limit/types.ts";

export interface MetaEnv {
  version: string;
  baseUrl: string;
  rateLimit: RateLimitPolicy;
  maxBodyBytes: number;
}

export type MetaHandler = (input: Record<string, unknown>, call: CallContext, env: MetaEnv) => Promise<unknown>;
