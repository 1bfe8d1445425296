/**
 * @module kit/length-first
 * Bounds what a string costs to validate by its field's limit, not by what a caller sent.
 *
 * Ajv runs with `allErrors`, so every keyword of a string is checked even after one failed: a
 * `pattern` (or `format`) would still scan a 1 MiB string that `maxLength: 320` had already
 * refused, and a regular expression's cost grows with what it scans. Ajv's own
 * `minLength`/`maxLength` count code points over the whole string (docs/benchmarks.md, *String
 * lengths before patterns*). `lengthFirst` rewrites a schema so that each length is checked by
 * `minChars`/`maxChars`, which look at no more of a string than twice the limit (a string of n
 * UTF-16 units holds between n/2 and n code points), and so that a string's `pattern` and `format`
 * run only once its `maxLength` holds. Errors keep Ajv's form (`maxLength`, `{limit}`), so callers
 * see the same details. The published schemas (docs, OpenAPI, MCP) keep their plain form: only the
 * copy that is compiled is rewritten.
 *
 * @example
 * const ajv = addLengthKeywords(new Ajv2020({ allErrors: true }));
 * ajv.compile(lengthFirst({ type: "string", maxLength: 8, pattern: "^[a-z]+$" }));
 * // compiles { type: "string", maxChars: 8, allOf: [{ if: { maxChars: 8 }, then: { pattern: "^[a-z]+$" } }] }
 */
import { _, type Ajv2020, type CodeKeywordDefinition, type KeywordCxt, str } from "ajv/dist/2020.js";
import { useFunc } from "ajv/dist/compile/util.js";

/** The name compiled code `require`s {@link codePoints} by (kit/src/validation.ts's loader answers it). */
export const LENGTH_FIRST_MODULE = "@gantry/kit/length-first.ts";

type Node = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const ONE = ["additionalProperties", "items", "contains", "not", "if", "then", "else", "propertyNames"] as const;
/** Keywords whose value is a list of subschemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "$defs", "dependentSchemas"] as const;

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** A copy of `schema` whose string lengths are checked in bounded time, before patterns and formats. */
export function lengthFirst<T>(schema: T): T {
  if (!isNode(schema)) return schema;
  const out: Node = { ...schema };
  for (const key of ONE) if (isNode(out[key])) out[key] = lengthFirst(out[key]);
  for (const key of LIST) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(lengthFirst);
  for (const key of MAP) {
    const map = out[key];
    if (isNode(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, lengthFirst(sub)]));
  }
  if (typeof out.minLength === "number") {
    out.minChars = out.minLength;
    delete out.minLength;
  }
  if (typeof out.maxLength !== "number") return out as T;
  const max = out.maxLength;
  out.maxChars = max;
  delete out.maxLength;
  const guarded: Node = {};
  if (typeof out.pattern === "string") guarded.pattern = out.pattern;
  if (typeof out.format === "string") guarded.format = out.format;
  if (Object.keys(guarded).length === 0) return out as T;
  delete out.pattern;
  delete out.format;
  out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { if: { maxChars: max }, then: guarded }];
  return out as T;
}

/**
 * Code points in `s`, counting no further than `stop` (a surrogate pair is one). Compiled validators
 * call it by name: `code` is how the standalone module that kit/src/validation.ts caches asks for it
 * (its loader answers that `require`).
 */
export function codePoints(s: string, stop: number): number {
  let count = 0;
  for (let i = 0; i < s.length && count <= stop; i++) {
    count++;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}
codePoints.code = `require(${JSON.stringify(LENGTH_FIRST_MODULE)}).codePoints`;

/** The keywords `lengthFirst` writes, and the keyword each reports its errors as. */
const REPORTED_AS: Readonly<Record<string, "minLength" | "maxLength">> = {
  minChars: "minLength",
  maxChars: "maxLength",
};

/**
 * Code-generating keywords (not closures), so a compiled validator can be written out as
 * standalone code: a string of n UTF-16 units holds between n/2 and n code points, so only a
 * length between the limit and twice it is counted, and never past the limit.
 */
function lengthKeyword(keyword: "minChars" | "maxChars"): CodeKeywordDefinition {
  const max = keyword === "maxChars";
  return {
    keyword,
    type: "string",
    schemaType: "number",
    error: {
      message: ({ schemaCode }) => str`must NOT have ${max ? "more" : "fewer"} than ${schemaCode} characters`,
      params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
    },
    code(cxt: KeywordCxt) {
      const { gen, data, schemaCode: limit } = cxt;
      const count = useFunc(gen, codePoints);
      cxt.fail(
        max
          ? _`${data}.length > ${limit} && (${data}.length > 2 * ${limit} || ${count}(${data}, ${limit}) > ${limit})`
          : _`${data}.length < 2 * ${limit} && (${data}.length < ${limit} || ${count}(${data}, ${limit}) < ${limit})`,
      );
    },
  };
}

/** Registers `minChars` and `maxChars` (the keywords `lengthFirst` writes) on an Ajv instance. */
export function addLengthKeywords<A extends Ajv2020>(ajv: A): A {
  ajv.addKeyword(lengthKeyword("minChars"));
  ajv.addKeyword(lengthKeyword("maxChars"));
  return ajv;
}

/**
 * Errors as callers see them: `minChars`/`maxChars` report as `minLength`/`maxLength`, the
 * keywords the published schema has. Changes `errors` in place and returns it.
 */
export function asLengthErrors<E extends { keyword: string }>(errors: E[]): E[] {
  for (const e of errors) e.keyword = REPORTED_AS[e.keyword] ?? e.keyword;
  return errors;
}
