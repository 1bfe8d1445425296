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

declare const VALUE: unique symbol;
declare const DEFAULTED: unique symbol;

/**
 * A JSON Schema node that also tells the type checker (and only it: nothing of this exists at run
 * time) the TypeScript type of the values it accepts, and whether it has a `default` that Ajv fills
 * in. Handlers get their input types from here, so a schema and its type cannot drift apart.
 */
export type Schema<T = unknown, D extends boolean = false> = JsonSchema & {
  readonly [VALUE]?: T;
  readonly [DEFAULTED]?: D;
};

/** The value type a schema accepts; `unknown` for a hand-written schema literal. */
export type Infer<S> = S extends { readonly [VALUE]?: infer T } ? T : unknown;

type Defaulted<S> = S extends { readonly [DEFAULTED]?: infer D } ? (D extends true ? true : false) : false;

type Simplify<T> = { -readonly [K in keyof T]: T[K] } & {};

/** Input as a handler sees it: required fields and fields with a default are present, others optional. */
export type ObjectOf<P, R extends PropertyKey> = Simplify<
  { [K in keyof P as K extends R ? K : Defaulted<P[K]> extends true ? K : never]: Infer<P[K]> } & {
    [K in keyof P as K extends R ? never : Defaulted<P[K]> extends true ? never : K]?: Infer<P[K]>;
  }
>;

/** Properties of an object schema, keyed by field name. */
export type Properties = Record<string, JsonSchema>;

/** Marks a hand-written schema literal with the type it accepts (for unions the builders cannot express). */
export function typed<T, D extends boolean = false>(schema: JsonSchema): Schema<T, D> {
  return schema as Schema<T, D>;
}

/** Options shared by the string builders. */
export interface StringOptions {
  min?: number;
  pattern?: string;
  format?: string;
  default?: string;
}

/** A closed object: `type: object`, `additionalProperties: false`, the given `required` list. */
export function object<const P extends Properties, const R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
  extra: JsonSchema = {},
): Schema<ObjectOf<P, R>> {
  for (const name of required) {
    if (!(name in properties)) throw new Error(`required field "${name}" is not among the properties`);
  }
  return { type: "object", additionalProperties: false, required, properties, ...extra };
}

/** A non-empty string of at most `max` characters. */
export function text<const O extends StringOptions = StringOptions>(
  description: string,
  max: number,
  options: O = {} as O,
): Schema<string, O extends { default: string } ? true : false> {
  const schema: JsonSchema = { type: "string", description, minLength: options.min ?? 1, maxLength: max };
  if (options.pattern !== undefined) schema.pattern = options.pattern;
  if (options.format !== undefined) schema.format = options.format;
  if (options.default !== undefined) schema.default = options.default;
  return schema;
}

/** A single line (no CR/LF) of at most `max` characters: titles, names, subjects. */
export function line(description: string, max = 200): Schema<string> {
  return text(description, max, { pattern: "^[^\\r\\n]+$" });
}

/** Pattern of opaque record ids issued by Gantry services (`con_…`, `ct_…`, ULIDs, …). */
export const ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.:-]*$";

/** An opaque record id issued by a Gantry service. */
export function id(description: string, max = 128): Schema<string> {
  return text(description, max, { pattern: ID_PATTERN });
}

/** Pattern of lowercase kebab-case slugs (verticals, products, skills, guide slugs). */
export const SLUG_PATTERN = "^[a-z0-9]+(?:-[a-z0-9]+)*$";

/** A lowercase kebab-case slug. */
export function slug(description: string, max = 64): Schema<string> {
  return text(description, max, { pattern: SLUG_PATTERN });
}

/** Pattern of a service key of a connection (`payments`, `email`, `whatsapp`, `github`, …). */
export const SERVICE_KEY_PATTERN = "^[a-z][a-z0-9_-]*$";

/** A connection service key. */
export function serviceKey(description: string): Schema<string> {
  return text(description, 64, { pattern: SERVICE_KEY_PATTERN });
}

/** Pattern of a tenant id, optionally nested (`acme`, `acme/shop1`). */
export const TENANT_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*$";

/** A tenant id. */
export function tenant(description: string): Schema<string> {
  return text(description, 128, { pattern: TENANT_PATTERN });
}

/** Pattern of a memory collection name. */
export const COLLECTION_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$";

/** A memory collection name. */
export function collection(description: string): Schema<string> {
  return text(description, 64, { pattern: COLLECTION_PATTERN });
}

/** `*` or a name matching `pattern` (an anchored `^…$` pattern): one entry of a key's collections or products. */
export function grantPattern(pattern: string): string {
  return `^(?:\\*|${pattern.slice(1, -1)})$`;
}

/** An absolute http(s) URL. */
export function url(description: string): Schema<string> {
  return text(description, 2048, { format: "uri", pattern: "^https?://" });
}

/** An email address (ajv-formats `email`). */
export function email(description: string): Schema<string> {
  return text(description, 254, { format: "email" });
}

/** A phone number as typed by a person; the owning service normalises it to E.164. */
export function phone(description: string): Schema<string> {
  return text(description, 32, { min: 5, pattern: "^\\+?[0-9][0-9 ().-]*[0-9]$" });
}

/** A phone number already in E.164 form (`+` country code and subscriber number). */
export function e164(description: string): Schema<string> {
  return text(description, 16, { pattern: "^\\+[1-9][0-9]{6,14}$" });
}

/** An RFC 3339 timestamp (ajv-formats `date-time`). */
export function dateTime(description: string): Schema<string> {
  return text(description, 64, { format: "date-time" });
}

/** A calendar date `YYYY-MM-DD` (ajv-formats `date`). */
export function date(description: string): Schema<string> {
  return text(description, 10, { format: "date" });
}

/** A boolean flag. */
export function flag(description: string): Schema<boolean>;
export function flag(description: string, defaultValue: boolean): Schema<boolean, true>;
export function flag(description: string, defaultValue?: boolean): JsonSchema {
  const schema: JsonSchema = { type: "boolean", description };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** A string restricted to `values`. */
export function oneOfValues<const V extends readonly string[]>(description: string, values: V): Schema<V[number]>;
export function oneOfValues<const V extends readonly string[]>(
  description: string,
  values: V,
  defaultValue: V[number],
): Schema<V[number], true>;
export function oneOfValues(description: string, values: readonly string[], defaultValue?: string): JsonSchema {
  const schema: JsonSchema = { type: "string", description, enum: [...values] };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** A string that must equal `value` (the `action` discriminator of union inputs). */
export function constant<const V extends string>(description: string, value: V): Schema<V> {
  return { type: "string", description, const: value };
}

/** An integer in `[min, max]`. */
export function integer(description: string, min: number, max: number): Schema<number>;
export function integer(description: string, min: number, max: number, defaultValue: number): Schema<number, true>;
export function integer(description: string, min: number, max: number, defaultValue?: number): JsonSchema {
  const schema: JsonSchema = { type: "integer", description, minimum: min, maximum: max };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** A number in `[min, max]`. */
export function number(description: string, min: number, max: number): Schema<number>;
export function number(description: string, min: number, max: number, defaultValue: number): Schema<number, true>;
export function number(description: string, min: number, max: number, defaultValue?: number): JsonSchema {
  const schema: JsonSchema = { type: "number", description, minimum: min, maximum: max };
  if (defaultValue !== undefined) schema.default = defaultValue;
  return schema;
}

/** An array of `items`, at most `max` long (and at least `min`, default 0). */
export function array<const S extends JsonSchema>(
  description: string,
  items: S,
  max: number,
  min = 0,
  unique = false,
): Schema<Infer<S>[]> {
  const schema: JsonSchema = { type: "array", description, items, maxItems: max };
  if (min > 0) schema.minItems = min;
  if (unique) schema.uniqueItems = true;
  return schema;
}

/** Page size of list abilities: integer 1..100, default 20. */
export function limit(defaultValue = 20, max = 100): Schema<number, true> {
  return integer(`Maximum number of items to return (1..${max}).`, 1, max, defaultValue);
}

/** Opaque pagination cursor: the `nextCursor` of the previous page. */
export function cursor(): Schema<string> {
  return text("Opaque cursor from the previous page's `nextCursor`; omit for the first page.", 512);
}

/**
 * Idempotency key of create-like abilities: the same key with the same input returns the first
 * result again; the same key with a different input is refused with 409. Scoped per tenant and ability.
 */
export function idempotencyKey(what = "the record"): Schema<string> {
  return text(
    `Client-chosen key that makes retries safe: reusing it with the same input returns the first result instead of creating ${what} again; reusing it with different input is refused (409).`,
    255,
  );
}

/** A money amount in major units (e.g. 12.50), strictly positive. */
export function amount(
  description = "Amount in major units of the currency (e.g. 12.50); validated against the currency's minor-unit precision.",
): Schema<number> {
  return { type: "number", description, exclusiveMinimum: 0, maximum: 1_000_000_000 };
}

/** An ISO 4217 currency code in upper case. */
export function currency(description = "ISO 4217 currency code, upper case (e.g. USD, EUR, NGN)."): Schema<string> {
  return text(description, 3, { min: 3, pattern: "^[A-Z]{3}$" });
}

/** A `{amount, currency}` money object. */
export function money(description: string) {
  return object({ amount: amount(), currency: currency() }, ["amount", "currency"], { description });
}

/** Pattern of metadata keys (also the metadata keys a memory filter may name). */
export const METADATA_KEY_PATTERN = "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$";

/** One metadata value: a short string, a number or a boolean. */
export type MetadataValue = string | number | boolean;

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
export function metadata(description: string): Schema<Record<string, MetadataValue>>;
export function metadata(description: string, allowNull: true): Schema<Record<string, MetadataValue | null>>;
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
export function freeObject(description: string, maxProperties = 200): Schema<Record<string, unknown>> {
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
export function memoryFilter(description: string): Schema<Record<string, unknown>> {
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

/** `schema` or `null`: the description moves to the outside so docs show it once. */
export function nullable<S extends JsonSchema>(schema: S, description: string): Schema<Infer<S> | null> {
  const { description: _ignored, ...rest } = schema;
  return { description, anyOf: [rest, { type: "null" }] };
}

/**
 * Exactly one of `variants` (closed objects told apart by a const discriminator): a union input.
 * `extra` adds keywords beside `oneOf` (a description, `type: "object"`).
 */
export function union<const V extends readonly JsonSchema[]>(
  variants: V,
  extra: JsonSchema = {},
): Schema<Infer<V[number]>> {
  return { ...extra, oneOf: [...variants] };
}
