/**
 * @module catalogue/output
 * Builders for result schemas (`output` of a catalogue entry). Results are closed objects whose
 * fields are all present (an absent value is `null`, never a missing key), so `fields` makes every
 * property required unless named as optional. Like the input builders, each carries the TypeScript
 * type of what it accepts (`OutputOf<id>` in index.ts), and every node is described: the same
 * schema feeds OpenAPI responses, MCP `outputSchema`, the typed client, and the check that runs on
 * every result in tests (kit/src/validation.ts `checkResult`).
 *
 * @example
 * output: fields({ id: str("Contact id."), name: str("Name."), email: nullableStr("Email, or null.") }),
 */
import { array, type Infer, type ObjectOf, type Properties, type Schema, nullable, typed } from "./schema.ts";
import type { JsonSchema } from "./types.ts";

/** A closed object with every property required except those in `optional`. */
export function fields<const P extends Properties, const O extends keyof P & string = never>(
  properties: P,
  optional: readonly O[] = [],
  extra: JsonSchema = {},
): Schema<ObjectOf<P, Exclude<keyof P & string, O>>> {
  for (const name of optional) {
    if (!(name in properties)) throw new Error(`optional field "${name}" is not among the properties`);
  }
  const required = Object.keys(properties).filter((k) => !(optional as readonly string[]).includes(k));
  return { type: "object", additionalProperties: false, required, properties, ...extra };
}

/** A string (no length bounds: results are what the service wrote). */
export function str(description: string, options: { format?: string; pattern?: string } = {}): Schema<string> {
  return { type: "string", description, ...options };
}

/** A string or null. */
export function nullableStr(description: string): Schema<string | null> {
  return nullable(str(description), description);
}

/** An RFC 3339 timestamp. */
export function timestamp(description: string): Schema<string> {
  return str(description, { format: "date-time" });
}

/** An RFC 3339 timestamp or null. */
export function nullableTimestamp(description: string): Schema<string | null> {
  return nullable(timestamp(description), description);
}

export function int(description: string): Schema<number> {
  return { type: "integer", description };
}

export function num(description: string): Schema<number> {
  return { type: "number", description };
}

export function bool(description: string): Schema<boolean> {
  return { type: "boolean", description };
}

/** One of `values`. */
export function enumOf<const V extends readonly string[]>(description: string, values: V): Schema<V[number]> {
  return { type: "string", description, enum: [...values] };
}

/** A list of `items` (unbounded: a result lists what there is; pages bound themselves). */
export function list<const S extends JsonSchema>(description: string, items: S): Schema<Infer<S>[]> {
  const { maxItems: _unbounded, ...schema } = array(description, items, 0) as JsonSchema;
  return schema as Schema<Infer<S>[]>;
}

/** An object with free keys whose values match `values` (metadata, counts by status). */
export function record<const S extends JsonSchema>(description: string, values: S): Schema<Record<string, Infer<S>>> {
  return { type: "object", description, additionalProperties: values };
}

/** Any JSON value (a tool's own result, an event payload): documented, not constrained. */
export function json(description: string): Schema<unknown> {
  return typed<unknown>({ description });
}

/** One page of a list: `{items, nextCursor}`; `nextCursor` is null on the last page. */
export function page<const S extends JsonSchema>(description: string, item: S) {
  return fields(
    {
      items: list(description, item),
      nextCursor: nullableStr("Pass as `cursor` to get the next page; null on the last page."),
    },
    [],
    { description: "One page of results." },
  );
}

/** Metadata as stored: string, number or boolean values. */
export function metadataOut(description: string): Schema<Record<string, string | number | boolean>> {
  return {
    type: "object",
    description,
    additionalProperties: { anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }] },
  };
}
