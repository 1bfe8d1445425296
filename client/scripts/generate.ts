/**
 * @module client/scripts/generate
 * Writes the client's view of the ability catalogue into `client/src/generated/`, so the published
 * package carries its own types and never imports the server monorepo:
 *
 * - `abilities.ts` (types only): the `details[].code` vocabulary (`DetailCode`), and for every ability a `<Name>Input` type (the caller's view: the
 *   schema's `required` fields are required, every other field, including those with a default, is
 *   optional) and a `<Name>Output` type (from the catalogue `output` schema; `unknown` while an entry
 *   has none), and the `Abilities` map from id to both. JSON Schema descriptions and defaults become
 *   doc comments.
 * - `runtime.ts` (a few hundred bytes at run time): the create-like abilities (input schema has an
 *   `idempotencyKey` property), the read-only ones (safe to resend after a network error), the areas
 *   (first id segments) and the error codes with their HTTP status (kit/src/errors.ts).
 *
 * Run by the root `npm run generate` and `postinstall` (infra/scripts/generate.ts). `--check` exits 1
 * when the files on disk differ from what the catalogue gives (client/test/generated.test.ts runs it).
 *
 * Usage: `node client/scripts/generate.ts [--check]`
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { catalogue } from "@gantry/proto/catalogue";
import * as kitErrors from "@gantry/kit/errors.ts";
import { isReadOnly } from "@gantry/proto/catalogue/effects.ts";

const { ERROR_TABLE } = kitErrors;
/** `details[].code` vocabulary, with meanings (kit/src/errors.ts); `string` where the kit has none. */
const DETAIL_CODES = (kitErrors as { DETAIL_CODES?: Record<string, string> }).DETAIL_CODES;

const OUT_DIR = fileURLToPath(new URL("../src/generated/", import.meta.url));

type Schema = { [key: string]: unknown };

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `contact.create` → `ContactCreate`, `lead.update_status` → `LeadUpdateStatus`. */
export function typeName(id: string): string {
  return id
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/**
 * A type expression and how tightly it binds: a union needs parentheses inside an intersection or
 * before `[]`, an intersection before `[]`. Kept structured so doc comments (which may hold any
 * character) never have to be parsed back.
 */
interface Ts {
  text: string;
  kind: "union" | "intersection" | "object" | "atom";
}

const atom = (text: string): Ts => ({ text, kind: "atom" });
const UNKNOWN = atom("unknown");

function wrap(type: Ts, inside: "array" | "intersection"): string {
  if (type.kind === "union" || (inside === "array" && type.kind === "intersection")) return `(${type.text})`;
  return type.text;
}

function docComment(schema: Schema, indent: string): string {
  const lines: string[] = [];
  if (typeof schema.description === "string" && schema.description.trim()) {
    lines.push(...schema.description.trim().split("\n"));
  }
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (lines.length === 0) return "";
  const safe = lines.map((l) => l.replaceAll("*/", "*\\/").trimEnd());
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((l) => `${indent} *${l ? ` ${l}` : ""}`).join("\n")}\n${indent} */\n`;
}

function union(types: Ts[]): Ts {
  const unique = [...new Map(types.map((t) => [t.text, t])).values()];
  if (unique.some((t) => t.text === "unknown")) return UNKNOWN;
  if (unique.length === 0) return atom("never");
  if (unique.length === 1) return unique[0];
  return { text: unique.map((t) => t.text).join(" | "), kind: "union" };
}

/** The TypeScript type a JSON Schema (the subset the catalogue writes) accepts. */
export function typeOf(schema: unknown, indent = ""): Ts {
  if (!isSchema(schema)) return UNKNOWN;
  if (schema.const !== undefined) return atom(JSON.stringify(schema.const));
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => atom(JSON.stringify(v))));

  let base: Ts | undefined;
  let baseIsOpenObject = false;
  switch (schema.type) {
    case "string":
      base = atom("string");
      break;
    case "integer":
    case "number":
      base = atom("number");
      break;
    case "boolean":
      base = atom("boolean");
      break;
    case "null":
      base = atom("null");
      break;
    case "array":
      base = atom(`${wrap(typeOf(schema.items, indent), "array")}[]`);
      break;
    case "object":
    case undefined:
      break;
    default:
      return UNKNOWN;
  }
  if (base === undefined && (schema.type === "object" || isSchema(schema.properties))) {
    baseIsOpenObject =
      !isSchema(schema.properties) && !isSchema(schema.patternProperties) && schema.additionalProperties === undefined;
    base = objectType(schema, indent);
  }

  const variants = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  let alternatives: Ts | undefined;
  if (variants) {
    const u = union(variants.map((v) => typeOf(v, indent)));
    if (u.text !== "unknown") alternatives = u;
  }
  const all = Array.isArray(schema.allOf)
    ? schema.allOf.map((v) => typeOf(v, indent)).filter((t) => t.text !== "unknown")
    : [];

  // A bare `type: object` beside `oneOf`/`anyOf` only says "an object": the variants say which.
  const parts: Ts[] = [];
  if (base !== undefined && !(alternatives !== undefined && baseIsOpenObject)) parts.push(base);
  if (alternatives !== undefined) parts.push(alternatives);
  parts.push(...all);
  if (parts.length === 0) return UNKNOWN;
  if (parts.length === 1) return parts[0];
  return { text: parts.map((p) => wrap(p, "intersection")).join(" & "), kind: "intersection" };
}

function objectType(schema: Schema, indent: string): Ts {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(properties);

  const indexTypes: Ts[] = [];
  if (isSchema(schema.patternProperties)) {
    for (const value of Object.values(schema.patternProperties)) indexTypes.push(typeOf(value, `${indent}  `));
  }
  if (isSchema(schema.additionalProperties)) indexTypes.push(typeOf(schema.additionalProperties, `${indent}  `));
  // Open objects get `[key: string]: unknown`, except subschemas that name properties without saying
  // anything about others: in the catalogue those are constraints (`anyOf` of required fields, `if`),
  // and an index signature there would switch off excess-property checks of the whole input.
  else if (schema.additionalProperties === true || (schema.additionalProperties === undefined && names.length === 0)) {
    indexTypes.push(UNKNOWN);
  }
  // Named properties must fit the index signature: keep it exact only when there are none.
  const index = indexTypes.length === 0 ? undefined : names.length > 0 ? UNKNOWN : union(indexTypes);

  if (names.length === 0) {
    return atom(index === undefined ? "Record<string, never>" : `{ [key: string]: ${index.text} }`);
  }
  const inner = `${indent}  `;
  let out = "{\n";
  for (const name of names) {
    const prop = properties[name];
    out += docComment(isSchema(prop) ? prop : {}, inner);
    out += `${inner}${propertyKey(name)}${required.has(name) ? "" : "?"}: ${typeOf(prop, inner).text};\n`;
  }
  if (index !== undefined) out += `${inner}[key: string]: ${index.text};\n`;
  return { text: `${out}${indent}}`, kind: "object" };
}

function declare(name: string, schema: Schema | undefined, summary: string): string {
  const doc = docComment({ description: summary }, "");
  const type = schema === undefined ? UNKNOWN : typeOf(schema);
  // Interfaces read better in editors; unions and the like stay type aliases.
  if (type.kind === "object") return `${doc}export interface ${name} ${type.text}\n`;
  return `${doc}export type ${name} = ${type.text};\n`;
}

const HEADER = (what: string) =>
  `// Generated by client/scripts/generate.ts from ${what}. Do not edit: run \`npm run generate\`.\n`;

/** The generated files, by file name, as the current catalogue gives them. */
export function render(): Record<string, string> {
  const names = new Map<string, string>();
  for (const ability of catalogue) {
    const name = typeName(ability.id);
    const other = names.get(name);
    if (other) throw new Error(`generate: ${ability.id} and ${other} map to the same type name ${name}`);
    names.set(name, ability.id);
  }

  let types = `${HEADER("the ability catalogue (proto/catalogue)")}/* eslint-disable */\n\n`;
  types +=
    "/**\n * Inputs are the caller's view: fields the schema requires are required; every other field,\n" +
    " * including those with a default, may be omitted. Outputs are what `result` holds on success.\n */\n\n";
  for (const ability of catalogue) {
    const name = typeName(ability.id);
    types += declare(`${name}Input`, ability.input, `Input of \`${ability.id}\`: ${ability.summary}`);
    types += "\n";
    types += declare(
      `${name}Output`,
      ability.output,
      ability.output === undefined
        ? `Result of \`${ability.id}\` (its catalogue entry has no output schema yet).`
        : `Result of \`${ability.id}\`.`,
    );
    types += "\n";
  }
  types += "/** Every ability by id: its input (caller's view) and result. */\nexport interface Abilities {\n";
  for (const ability of catalogue) {
    const name = typeName(ability.id);
    types += docComment({ description: ability.summary }, "  ");
    types += `  ${JSON.stringify(ability.id)}: { input: ${name}Input; output: ${name}Output };\n`;
  }
  types += "}\n\n";
  types +=
    "/** The closed vocabulary of `details[].code` in error answers (kit/src/errors.ts). */\nexport type DetailCode =";
  if (DETAIL_CODES === undefined) types += " string;\n";
  else {
    for (const [code, meaning] of Object.entries(DETAIL_CODES)) {
      types += `\n  // ${meaning.replaceAll("\n", " ")}\n  | ${JSON.stringify(code)}`;
    }
    types += ";\n";
  }

  const createLike = catalogue
    .filter((a) => isSchema(a.input.properties) && Object.hasOwn(a.input.properties, "idempotencyKey"))
    .map((a) => a.id);
  const readOnly = catalogue.filter((a) => isReadOnly(a.id)).map((a) => a.id);
  const areas = [...new Set(catalogue.map((a) => a.id.slice(0, a.id.indexOf("."))))].sort();
  const list = (ids: string[]) => `[\n${ids.map((id) => `  ${JSON.stringify(id)},\n`).join("")}]`;

  let runtime = `${HEADER("the ability catalogue (proto/catalogue) and kit/src/errors.ts")}\n`;
  runtime +=
    "/** Abilities whose input has an `idempotencyKey`: the client adds one when the caller gives none. */\n" +
    `export const CREATE_LIKE: readonly string[] = ${list(createLike)};\n\n`;
  runtime +=
    "/** Abilities that only read: resent after a network error (as the MCP tools' readOnlyHint). */\n" +
    `export const READ_ONLY: readonly string[] = ${list(readOnly)};\n\n`;
  runtime += `/** The areas: first segments of the ability ids. */\nexport const AREAS = ${list(areas)} as const;\n\n`;
  runtime += "/** The closed set of error codes, each with its HTTP status. */\nexport const ERROR_STATUS = {\n";
  for (const [code, row] of Object.entries(ERROR_TABLE)) runtime += `  ${code}: ${row.http},\n`;
  runtime += "} as const;\n";

  return { "abilities.ts": types, "runtime.ts": runtime };
}

/** Writes the files that changed; returns the names of those that were (or, with `check`, would be) changed. */
export function write(check = false): string[] {
  const changed: string[] = [];
  for (const [name, content] of Object.entries(render())) {
    const file = path.join(OUT_DIR, name);
    let current: string | undefined;
    try {
      current = fs.readFileSync(file, "utf8");
    } catch {
      /* not generated yet */
    }
    if (current === content) continue;
    changed.push(name);
    if (!check) {
      fs.mkdirSync(OUT_DIR, { recursive: true });
      fs.writeFileSync(file, content);
    }
  }
  return changed;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const changed = write(check);
  if (check && changed.length > 0) {
    console.error(`client: src/generated/${changed.join(", ")} out of date; run \`npm run generate\``);
    process.exit(1);
  }
}
