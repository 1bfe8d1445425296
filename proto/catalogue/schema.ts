/**
 * @module catalogue/schema
 * Small builders for the JSON Schema (draft 2020-12) fragments the catalogue repeats: bounded
 * strings, prefixed ids, pagination, idempotency keys, money. Every builder returns a fresh object,
 * so no two abilities share (and could accidentally mutate) one schema node.
 *
 * All fragments are written to compile under Ajv 2020 with `strict: true`, which means: every
 * keyword sits next to the `type` it applies to, no union `type` arrays (use `anyOf`), no `default`
 * inside `oneOf`/`anyOf` (Ajv ignores those and strict mode refuses them), and every property named
 * in a conditional `required` is also declared in that subschema's `properties`.
 *
 * @example
 * import { object, text, limit, cursor } from "./schema.ts";
 * const input = object({ query: text("Search text.", 500), limit: limit(), cursor: cursor() });
 */
import type { JsonSchema } from "./types.ts";

/** Properties of an object schema, keyed by field name. */
export type Properties = Record<string, JsonSchema>;

/** Options shared by the string builders. */
export interface StringOptions {
  min?: number;
  pattern?: string;
  format?: string;
  default?: string;
}

/** A closed object: `type: object`, `additionalProperties: false`, the given `required` list. */
export function object(properties: Properties, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  for (const name of required) {
    if (!(name in properties)) throw new Error(`required field "${name}" is not among the properties`);
  }
  return { type: "object", additionalProperties: false, required, properties, ...extra };
}

/** A non-empty string of at most `max` characters. */
export function text(description: string, max: number, options: StringOptions = {}): JsonSchema {
  const schema: JsonSchema = { type: "string", description, minLength: options.min ?? 1, maxLength: max };
  if (options.pattern !== undefined) schema.pattern = options.pattern;
  if (options.format !== undefined) schema.format = options.format;
  if (options.default !== undefined) schema.default = options.default;
  return schema;
}

/** A single line (no CR/LF) of at most `max` characters: titles, names, subjects. */
export function line(description: string, max = 200): JsonSchema {
  return text(description, max, { pattern: "^[^\\r\\n]+$" });
}

/** Pattern of opaque record ids issued by Gantry services (`con_…`, `ct_…`, ULIDs, …). */
export const ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:-]*$";

/** An opaque record id issued by a Gantry service. */
export function id(description: string, max = 128): JsonSchema {
  return text(description, max, { pattern: ID_PATTERN });
}

/** Pattern of lowercase kebab-case slugs (verticals, products, skills, guide slugs). */
export const SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$";

/** A lowercase kebab-case slug. */
export function slug(description: string, max = 64): JsonSchema {
  return text(description, max, { pattern: SLUG_PATTERN });
}

/** Pattern of a service key of a connection (`payments`, `email`, `whatsapp`, `github`, …). */
export const SERVICE_KEY_PATTERN = "^[a-z][a-z0-9_-]*$";

/** A connection service key. */
export function serviceKey(description: string): JsonSchema {
  return text(description, 64, { pattern: SERVICE_KEY_PATTERN });
}

/** Pattern of a tenant id, optionally nested (`acme`, `acme/shop1`). */
export const TENANT_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*$";

/** A tenant id. */
export function tenant(description: string): JsonSchema {
  return text(description, 128, { pattern: TENANT_PATTERN });
}

/** Pattern of a memory collection name. */
export const COLLECTION_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$";

/** A memory collection name. */
export function collection(description: string): JsonSchema {
  return text(description, 64, { pattern: COLLECTION_PATTERN });
}

/** An absolute http(s) URL. */
export function url(description: string): JsonSchema {
  return text(description, 2048, { format: "uri", pattern: "^https?://" });
}

/** An email address (ajv-formats `email`). */
export function email(description: string): JsonSchema {
  return text(description, 254, { format: "email" });
}

/** A phone number as typed by a person; the owning service normalises it to E.164. */
export function phone(description: string): JsonSchema {
  return text(description, 32, { min: 5, pattern: "^\\+?[0-9][0-9 ().-]*[0-9]$" });
}

/** A phone number already in E.164 form (`+` country code and subscriber number). */
export function e164(description: string): JsonSchema {
  return text(description, 16, { pattern: "^\\+[1-9][0-9]{6,14}$" });
}

/** An RFC 3339 timestamp (ajv-formats `date-time`). */
export function dateTime(description: string): JsonSchema {
  return text(description, 64, { format: "date-time" });
}

/** A calendar date `YYYY-MM-DD` (ajv-formats `date`). */
export function date(description: string): JsonSchema {
  return text(description, 10, { format: "date" });
}

/** A boolean flag. */
export function flag(description: string, defaultValue?: boolean): JsonSchema {
  const schema: JsonSchema = { type: "boolean", description };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** A string restricted to `values`. */
export function oneOfValues(description: string, values: readonly string[], defaultValue?: string): JsonSchema {
  const schema: JsonSchema = { type: "string", description, enum: [...values] };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** A string that must equal `value` (the `action` discriminator of union inputs). */
export function constant(description: string, value: string): JsonSchema {
  return { type: "string", description, const: value };
}

/** An integer in `[min, max]`. */
export function integer(description: string, min: number, max: number, defaultValue?: number): JsonSchema {
  const schema: JsonSchema = { type: "integer", description, minimum: min, maximum: max };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** A number in `[min, max]`. */
export function number(description: string, min: number, max: number, defaultValue?: number): JsonSchema {
  const schema: JsonSchema = { type: "number", description, minimum: min, maximum: max };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** An array of `items`, at most `max` long (and at least `min`, default 0). */
export function array(description: string, items: JsonSchema, max: number, min = 0, unique = false): JsonSchema {
  const schema: JsonSchema = { type: "array", description, items, maxItems: max };
  if (min > 0) schema.minItems = min;
  if (unique) schema.uniqueItems = true;
  return schema;
}

/** Page size of list abilities: integer 1..100, default 20. */
export function limit(defaultValue = 20, max = 100): JsonSchema {
  return integer(`Maximum number of items to return (1..${max}).`, 1, max, defaultValue);
}

/** Opaque pagination cursor: the `nextCursor` of the previous page. */
export function cursor(): JsonSchema {
  return text("Opaque cursor from the previous page's `nextCursor`; omit for the first page.", 512);
}

/**
 * Idempotency key of create-like abilities: the same key with the same input returns the first
 * result again; the same key with a different input is refused with 409. Scoped per tenant and ability.
 */
export function idempotencyKey(what = "the record"): JsonSchema {
  return text(
    `Client-chosen key that makes retries safe: reusing it with the same input returns the first result instead of creating ${what} again; reusing it with different input is refused (409).`,
    255,
  );
}

/** A money amount in major units (e.g. 12.50), strictly positive. */
export function amount(description = "Amount in major units of the currency (e.g. 12.50); validated against the currency's minor-unit precision."): JsonSchema {
  return { type: "number", description, exclusiveMinimum: 0, maximum: 1_000_000_000 };
}

/** An ISO 4217 currency code in upper case. */
export function currency(description = "ISO 4217 currency code, upper case (e.g. USD, EUR, NGN)."): JsonSchema {
  return text(description, 3, { min: 3, pattern: "^[A-Z]{3}$" });
}

/** A `{amount, currency}` money object. */
export function money(description: string): JsonSchema {
  return object({ amount: amount(), currency: currency() }, ["amount", "currency"], { description });
}

/** Pattern of metadata keys (also the metadata keys a memory filter may name). */
export const METADATA_KEY_PATTERN = "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$";

/** One metadata value: a short string, a number or a boolean. */
export function metadataValue(allowNull = false): JsonSchema {
  const variants: JsonSchema[] = [{ type: "string", maxLength: 500 }, { type: "number" }, { type: "boolean" }];
  if (allowNull) variants.push({ type: "null" });
  return { anyOf: variants };
}

/**
 * Free-form metadata: at most 50 keys (letters, digits, `_ . -`, starting with a letter or `_`,
 * ≤ 64 characters), each a string (≤ 500), number or boolean. With `allowNull`, `null` removes the
 * key in a partial update.
 */
export function metadata(description: string, allowNull = false): JsonSchema {
  return {
    type: "object",
    description,
    maxProperties: 50,
    propertyNames: { type: "string", maxLength: 64, pattern: METADATA_KEY_PATTERN },
    additionalProperties: metadataValue(allowNull),
  };
}

/** A free-form JSON object (tool arguments, event payloads): only its size of keys is bounded. */
export function freeObject(description: string, maxProperties = 200): JsonSchema {
  return { type: "object", description, maxProperties };
}

/** Pattern of ability ids: `<area>.<operation>` in lower snake case, dot separated. */
export const ABILITY_ID_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$";

/** Scalar values a memory filter may compare against. */
function filterScalar(): JsonSchema {
  return { anyOf: [{ type: "string", maxLength: 500 }, { type: "number" }, { type: "boolean" }] };
}

/** Conditions on metadata keys: `{key: value}` (equality) or `{key: {$eq|$ne|$in|$nin|$gt|$gte|$lt|$lte}}`. */
function metadataConditions(): JsonSchema {
  const operators = object(
    {
      $eq: { description: "Equal to.", ...filterScalar() },
      $ne: { description: "Not equal to (also matches when the key is absent).", ...filterScalar() },
      $in: array("Equal to one of these values.", filterScalar(), 100, 1),
      $nin: array("Equal to none of these values.", filterScalar(), 100, 1),
      $gt: { type: "number", description: "Greater than (numbers)." },
      $gte: { type: "number", description: "Greater than or equal to (numbers)." },
      $lt: { type: "number", description: "Less than (numbers)." },
      $lte: { type: "number", description: "Less than or equal to (numbers)." },
    },
    [],
    { minProperties: 1 },
  );
  return {
    anyOf: [filterScalar(), operators],
  };
}

/**
 * The memory payload filter grammar (bounded to two levels so the schema stays self-contained, with
 * no `$ref`): an object whose keys are metadata keys (all conditions must hold) plus optional
 * `$and` / `$or`, each a list of condition objects (which themselves only name metadata keys).
 * The plain form `{"kind": "vet"}` means metadata `kind` equals `"vet"`.
 */
export function memoryFilter(description: string): JsonSchema {
  const leaf = {
    type: "object",
    description: "Conditions on metadata keys; all must hold.",
    minProperties: 1,
    maxProperties: 20,
    additionalProperties: false,
    patternProperties: { [METADATA_KEY_PATTERN]: metadataConditions() },
  };
  return {
    type: "object",
    description,
    maxProperties: 22,
    additionalProperties: false,
    properties: {
      $and: array("All of these condition objects must hold.", leaf, 20, 1),
      $or: array("At least one of these condition objects must hold.", leaf, 20, 1),
    },
    patternProperties: { [METADATA_KEY_PATTERN]: metadataConditions() },
  };
}
