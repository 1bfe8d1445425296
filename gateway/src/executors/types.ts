/**
 * @module gateway/executors/types
 * The one interface the Dispatcher runs abilities through, whether the owner is an area service
 * behind gRPC or the gateway itself: the pipeline hands every validated call to the Dispatcher the
 * same way, and live status asks every owner the same question.
 */
import type { CallContext } from "@gantry/kit";
import type { RateLimitPolicy } from "../rate-limit/types.ts";

/** Something a wired ability (or one part of it) cannot do on this deployment (kit/ability-needs). */
export interface AbilityNeedView {
  /** The part that cannot run (`channel sms`); null when it is the whole ability. */
  part: string | null;
  /** `needs_configuration`: set `variables`; `not_wired`: no adapter yet. */
  status: "needs_configuration" | "not_wired";
  /** Environment variables of the owning service to set. */
  variables: string[];
  message: string;
}

/** One ability an owner declares, whether it has a handler for it, and what it still needs. */
export interface WiredAbility {
  id: string;
  wired: boolean;
  needs?: AbilityNeedView[];
}

/**
 * What the gateway knows about a call beyond the wire CallContext. Area services have no use for
 * it (their gRPC context has no such fields); the gateway's own abilities describe the gateway as
 * this client reaches it, so they need it.
 */
export interface EdgeInfo {
  /** Base URL the client reached the gateway at (or PUBLIC_URL), for the links an answer gives. */
  baseUrl: string;
  /** The rate limit applied to the calling key. */
  rateLimit: RateLimitPolicy;
}

/** What an owner answered for one call. */
export interface ExecuteOutput {
  /** The JSON-encoded result. */
  resultJson: string;
  /**
   * True when the call was an idempotent replay (its idempotencyKey was already used with the same
   * input): the pipeline then sends `Idempotent-Replayed: true`. From `ExecuteResponse.replayed`.
   */
  replayed: boolean;
}

export interface AbilityExecutor {
  /** Runs one validated call (input already defaulted) and resolves to its JSON-encoded result. */
  execute(ability: string, inputJson: string, call: CallContext, edge?: EdgeInfo): Promise<ExecuteOutput>;
  /** The owner's abilities and which are wired; null when the owner does not answer. */
  describe(): Promise<WiredAbility[] | null>;
  close(): void;
}
