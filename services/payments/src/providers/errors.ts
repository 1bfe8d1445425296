/**
 * @module payments/providers/errors
 * How a provider's refusal reaches the caller: a provider that could not be reached is 503
 * (`unavailable`, retry), a provider that answered with an error is 502 (`upstream_failed`). The
 * provider's own message is kept in the log (`cause`), not in the answer: it may carry account data.
 */
import { GantryError } from "@gantry/kit";

export function providerUnreachable(provider: string, cause: unknown): GantryError {
  return new GantryError("unavailable", `${provider} could not be reached; retry the request (same idempotencyKey).`, {
    reason: `The request to ${provider} failed before it answered.`,
    cause,
  });
}

export function providerRefused(
  provider: string,
  what: string,
  status: number | undefined,
  cause: unknown,
): GantryError {
  return new GantryError("upstream_failed", `${provider} refused to ${what} (HTTP ${status ?? "?"}).`, {
    reason: `${provider} answered the request with an error.`,
    cause,
  });
}
