/**
 * @module gateway/meta/types
 * Meta abilities describe the gateway itself, so they run inside it (meta/executor.ts) and are
 * given what only the gateway knows: its version and limits, live status, and the call's edge.
 */
import type { CallContext } from "@gantry/kit";
import type { EdgeInfo } from "../executors/types.ts";
import type { LiveStatus } from "../discovery/live-status.ts";

/** The gateway's facts, fixed for the process. */
export interface MetaFacts {
  version: string;
  maxBodyBytes: number;
  liveStatus: LiveStatus;
}

/** What a meta handler gets besides its input and call context. */
export type MetaEnv = MetaFacts & EdgeInfo;

export type MetaHandler = (input: Record<string, unknown>, call: CallContext, env: MetaEnv) => Promise<unknown>;
