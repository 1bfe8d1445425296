/**
 * @module proto/catalogue/schema-walk
 * Visits every subschema of a catalogue schema, for the checks that read the catalogue as data
 * (bounds, descriptions, patterns).
 *
 * @example
 * walkSchema(ability.input, ability.id, (node, path) => { if (node.pattern) console.log(path); });
 */
import type { JsonSchema } from "./types.ts";

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Calls `visit` on every schema node, with a JSON-pointer-like path below `path`. */
export function walkSchema(schema: unknown, path: string, visit: (node: JsonSchema, path: string) => void): void {
  if (!isObject(schema)) return;
  visit(schema, path);
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" || key === "patternProperties" || key === "$defs") {
      if (isObject(value)) {
        for (const [name, sub] of Object.entries(value)) walkSchema(sub, `${path}/${key}/${name}`, visit);
      }
    } else if (key === "allOf" || key === "anyOf" || key === "oneOf" || key === "prefixItems") {
      if (Array.isArray(value)) for (const [i, sub] of value.entries()) walkSchema(sub, `${path}/${key}/${i}`, visit);
    } else if (
      ["items", "if", "then", "else", "not", "additionalProperties", "propertyNames", "contains"].includes(key)
    ) {
      walkSchema(value, `${path}/${key}`, visit);
    }
  }
}
