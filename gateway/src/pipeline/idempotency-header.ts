/**
 * @module gateway/pipeline/idempotency-header
 * The `Idempotency-Key` request header, Stripe's convention, for every ability whose input has an
 * `idempotencyKey` field: the header fills the field. The replay marker travels the other way
 * (`ExecuteResponse.replayed` → `Idempotent-Replayed: true`, see execute-ability.ts).
 */
import type { AbilityDef, JsonSchema } from "@gantry/proto/catalogue";
import { GantryError } from "@gantry/kit";

/** The header's description, for OpenAPI. */
export const IDEMPOTENCY_HEADER_DOC =
  "Same as `input.idempotencyKey` (Stripe's convention): fills it when the input has none; both given and different is 400. A repeated call with the same key and input returns the first result, with `Idempotent-Replayed: true`.";

/** True when the ability's input schema (or one of its variants) has an `idempotencyKey` field. */
export function takesIdempotencyKey(schema: JsonSchema): boolean {
  const props = schema.properties as Record<string, unknown> | undefined;
  if (props && Object.hasOwn(props, "idempotencyKey")) return true;
  for (const k of ["oneOf", "anyOf", "allOf"] as const) {
    const alts = schema[k] as JsonSchema[] | undefined;
    if (alts?.some((alt) => takesIdempotencyKey(alt))) return true;
  }
  return false;
}

/**
 * The `Idempotency-Key` header fills `input.idempotencyKey` (Stripe's convention; the field and
 * the header are the same key). Both given and different → 400 naming both; an ability that takes
 * no idempotencyKey → 400 rather than silently ignoring it, because a client sending the header
 * believes its retries are safe.
 */
export function applyIdempotencyHeader(ability: AbilityDef, input: unknown, header: string): void {
  if (!takesIdempotencyKey(ability.input)) {
    throw new GantryError("invalid_request", `${ability.id} does not take an idempotency key.`, {
      reason: `Only abilities whose input has an "idempotencyKey" field are made safe to retry by a key; ${ability.id} has none, so the Idempotency-Key header would be ignored. Send it without the header.`,
      details: [
        {
          path: "/headers/idempotency-key",
          message: `${ability.id} does not take an idempotency key`,
          code: "idempotency_not_supported",
        },
      ],
    });
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) return; // validation names it
  const fields = input as Record<string, unknown>;
  if (fields.idempotencyKey === undefined) {
    fields.idempotencyKey = header;
    return;
  }
  if (fields.idempotencyKey !== header) {
    throw new GantryError(
      "invalid_request",
      `The Idempotency-Key header (${JSON.stringify(header)}) and input.idempotencyKey (${JSON.stringify(fields.idempotencyKey)}) differ.`,
      {
        reason: "Send the idempotency key once (the header or the input field), or the same value in both.",
        details: [
          {
            path: "/input/idempotencyKey",
            message: "input.idempotencyKey differs from the Idempotency-Key header",
            code: "idempotency_key_mismatch",
          },
        ],
      },
    );
  }
}
