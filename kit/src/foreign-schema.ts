/**
 * @module kit/foreign-schema
 * Validating a value against a JSON Schema we did not write, such as a request schema taken from a
 * provider's OpenAPI document (the connections service's tools). The catalogue's Ajv is strict, which
 * is right for our own schemas but refuses third-party ones over keywords they legitimately carry
 * (`x-…` extensions, OpenAPI's `example`, unknown formats such as `unix-time`). Here unknown keywords
 * and formats are ignored, and every error is the kit's field-named detail (`toDetails`), under the
 * JSON Pointer root the caller names (e.g. `/input/arguments`); a failing keyword outside the closed
 * DETAIL_CODES (e.g. `multipleOf`) is reported as `invalid_value`.
 *
 * @example
 * const check = foreignValidator(tool.inputSchema, "/input/arguments");
 * const details = check(args); // [] when valid
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { type ErrorDetail, isDetailCode } from "./errors.ts";
import { toDetails } from "./validation.ts";

// ajv-formats is CommonJS; under ESM its callable is the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let ajv: Ajv2020 | undefined;

/** Compiles `schema` once; the function answers the problems of a value (empty when it is valid). */
export function foreignValidator(schema: object, root: string): (value: unknown) => ErrorDetail[] {
  ajv ??= addFormats(new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true, logger: false }));
  const validate = ajv.compile(schema);
  // A keyword our own schemas never use (multipleOf, not, …) is not in the closed DETAIL_CODES.
  return (value) =>
    validate(value)
      ? []
      : toDetails(validate.errors ?? [], root).map((d) => (isDetailCode(d.code) ? d : { ...d, code: "invalid_value" }));
}
