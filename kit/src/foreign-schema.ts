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
 * A foreign pattern is nobody's review: `^(a+)+$` in a provider's document would let one argument
 * hold the event loop for hours under JavaScript's backtracking engine. Patterns here run on RE2
 * (re2js, linear time in the input but far slower than native (docs/benchmarks.md, *Foreign
 * patterns on RE2*): fine for tool arguments, which is why the catalogue's own, proved-safe
 * patterns stay native); lengths are checked first (kit/src/length-first.ts). A pattern RE2 cannot
 * run (look-around, back-references) is left to the provider, which validates its own input anyway.
 *
 * @example
 * const check = foreignValidator(tool.inputSchema, "/input/arguments");
 * const details = check(args); // [] when valid
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import addFormatsModule from "ajv-formats";
import { RE2JS } from "re2js";
import { type ErrorDetail, isDetailCode } from "./errors.ts";
import { addLengthKeywords, lengthFirst } from "./length-first.ts";
import { toDetails } from "./validation.ts";

// ajv-formats is CommonJS; under ESM its callable is the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

let ajv: Ajv2020 | undefined;

/** Compiles `schema` once; the function answers the problems of a value (empty when it is valid). */
export function foreignValidator(schema: object, root: string): (value: unknown) => ErrorDetail[] {
  ajv ??= addLengthKeywords(
    addFormats(
      new Ajv2020({
        strict: false,
        allErrors: true,
        allowUnionTypes: true,
        logger: false,
        code: { regExp: linearRegExp },
      }),
    ),
  );
  const validate = ajv.compile(lengthFirst(schema));
  // A keyword our own schemas never use (multipleOf, not, …) is not in the closed DETAIL_CODES.
  return (value) =>
    validate(value)
      ? []
      : toDetails(validate.errors ?? [], root).map((d) => (isDetailCode(d.code) ? d : { ...d, code: "invalid_value" }));
}

/**
 * Ajv's regular-expression engine for foreign schemas: RE2, or a pass for a pattern RE2 cannot run.
 * Ajv shares compiled patterns by their `toString()`, so each must print as its own source; `code`
 * would name the engine in standalone generated code, which is not used here.
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const source = `/${pattern}/u`;
    try {
      const re = RE2JS.compile(pattern);
      return { test: (s: string) => re.test(s), toString: () => source };
    } catch {
      return { test: () => true, toString: () => source };
    }
  },
  { code: String(RE2JS.name) },
);
