/**
 * @module kit/call-signal
 * The deadline and cancellation of the call being served, beyond the handler. The kit runs every
 * ability call inside {@link withCallSignal}, so what works on the call's behalf stops with it
 * without every handler passing the signal on: the service's Postgres pool cancels the running
 * statement (kit/tenancy), the SSRF guard's fetch aborts (kit/ssrf). A handler still gets the same
 * signal as `call.signal`, for the work the kit does not see (a browser page, a loop).
 *
 * A hop to another service made on a call's behalf takes {@link forwardCall}: the caller's
 * remaining deadline and its signal, so a caller that gave up stops the work on every hop, not
 * only the first.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { GantryError } from "./errors.ts";
import type { CallContext } from "./wire.ts";

const signals = new AsyncLocalStorage<AbortSignal | undefined>();

/** Runs `fn` as the work of a call whose end `signal` announces. */
export function withCallSignal<T>(signal: AbortSignal, fn: () => T): T {
  return signals.run(signal, fn);
}

/** The signal of the call whose work this is, if any. */
export function callSignal(): AbortSignal | undefined {
  return signals.getStore();
}

/** `signal`, or one that also aborts when the call this work is for does (outgoing requests, timers). */
export function stopsWithCall(signal: AbortSignal): AbortSignal {
  const call = signals.getStore();
  return call ? AbortSignal.any([signal, call]) : signal;
}

/**
 * Runs `fn` as nobody's work in particular: a statement shared by several calls (kit/data/batched)
 * must not be cancelled because the one call that happened to start it gave up.
 */
export function detachedFromCall<T>(fn: () => T): T {
  return signals.run(undefined, fn);
}

/** Milliseconds left before `call`'s deadline (at least 1), or `fallbackMs` when it has none. */
export function remainingMs(call: Pick<CallContext, "deadline">, fallbackMs: number): number {
  return call.deadline === undefined ? fallbackMs : Math.max(1, call.deadline - Date.now());
}

/** The options of a gRPC hop made for `call`: its remaining deadline and its signal. */
export function forwardCall(
  call: Pick<CallContext, "deadline" | "signal">,
  fallbackMs = 30_000,
): { deadlineMs: number; signal?: AbortSignal } {
  return { deadlineMs: remainingMs(call, fallbackMs), ...(call.signal ? { signal: call.signal } : {}) };
}

/** Why a call stopped when its caller gave up (the deadline's own reason is a `timeout` too). */
export function callerGone(): GantryError {
  return new GantryError("timeout", "The caller cancelled the call.");
}

/** Why a call stopped at its deadline. */
export function deadlinePassed(what = "the call"): GantryError {
  return new GantryError("timeout", `${what} did not finish within its deadline.`);
}
