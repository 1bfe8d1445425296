/**
 * @module kit/call-outcome
 * What a handler's call came to beyond its result, carried to the gateway without touching the
 * result body. Today one fact: the call was an idempotent **replay** (an `idempotencyKey` already
 * used with the same input, so the first call's result was returned and nothing new was created).
 *
 * The kit runs every `Execute` inside {@link withCallOutcome}; `idempotentCreate` calls
 * {@link markReplayed} when it answers from a previous call, so no handler has to pass the flag on.
 * The service sends it as `ExecuteResponse.replayed` (proto/gantry/ability/v1/ability.proto) and
 * the gateway answers such calls with the `Idempotent-Replayed: true` header (Stripe's convention).
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface CallOutcome {
  /** True when the call returned a previous call's result for the same idempotencyKey. */
  replayed: boolean;
}

const outcomes = new AsyncLocalStorage<CallOutcome>();

/** Runs `fn` with a fresh outcome record and returns its result together with the outcome. */
export async function withCallOutcome<T>(fn: () => Promise<T>): Promise<{ result: T; outcome: CallOutcome }> {
  const outcome: CallOutcome = { replayed: false };
  const result = await outcomes.run(outcome, fn);
  return { result, outcome };
}

/** Marks the current call as a replay (no-op outside {@link withCallOutcome}). */
export function markReplayed(): void {
  const outcome = outcomes.getStore();
  if (outcome) outcome.replayed = true;
}
