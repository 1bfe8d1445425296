/**
 * @module catalogue/render-docs
 * Renders docs/abilities.md from the catalogue, so the reference page never drifts from the
 * schemas. The catalogue test fails when the committed page differs from this output.
 *
 * @example
 * // from the repository root
 * // node proto/catalogue/render-docs.ts > docs/abilities.md
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { abilityById, areas, catalogue } from "./index.ts";
import { conventions, decisions } from "./decisions.ts";
import type { AbilityDef, JsonSchema } from "./types.ts";

interface Row {
  name: string;
  type: string;
  required: boolean;
  defaultValue: string;
  notes: string;
}

type Schema = JsonSchema;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function code(value: string): string {
  return `\`${value}\``;
}

/**
 * Escapes a table cell: a pipe would end the cell (GFM reads `\|` as a literal pipe, also inside
 * code spans) and a line break would end the row. Backslashes stay as they are.
 */
function cell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

function typeOf(schema: Schema): string {
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as unknown[]).filter(isSchema).map(typeOf).join(" | ");
  }
  const type = schema.type;
  if (type === "array") {
    const items = isSchema(schema.items) ? schema.items : {};
    const inner = typeOf(items);
    return inner.includes("|") ? `(${inner})[]` : `${inner}[]`;
  }
  if (type === "string" && typeof schema.format === "string") return `string (${schema.format})`;
  if (typeof type === "string") return type;
  if (Array.isArray(schema.oneOf)) return "object";
  return "any";
}

function constraints(schema: Schema): string[] {
  const out: string[] = [];
  if (schema.const !== undefined) out.push(`Must be ${code(String(schema.const))}.`);
  if (Array.isArray(schema.enum))
    out.push(`One of: ${(schema.enum as unknown[]).map((v) => code(String(v))).join(", ")}.`);
  const min = schema.minLength as number | undefined;
  const max = schema.maxLength as number | undefined;
  if (max !== undefined) {
    out.push(
      min === max ? `Exactly ${max} chars.` : min !== undefined && min > 0 ? `${min}–${max} chars.` : `≤ ${max} chars.`,
    );
  }
  if (typeof schema.pattern === "string") out.push(`Pattern ${code(schema.pattern)}.`);
  const lower =
    schema.minimum !== undefined
      ? `≥ ${schema.minimum}`
      : schema.exclusiveMinimum !== undefined
        ? `> ${schema.exclusiveMinimum}`
        : "";
  const upper =
    schema.maximum !== undefined
      ? `≤ ${schema.maximum}`
      : schema.exclusiveMaximum !== undefined
        ? `< ${schema.exclusiveMaximum}`
        : "";
  if (lower || upper) out.push(`${[lower, upper].filter(Boolean).join(", ")}.`);
  if (schema.type === "array") {
    const parts: string[] = [];
    if (schema.minItems !== undefined) parts.push(`${schema.minItems}..${schema.maxItems ?? "∞"} items`);
    else if (schema.maxItems !== undefined) parts.push(`≤ ${schema.maxItems} items`);
    if (schema.uniqueItems === true) parts.push("unique");
    if (parts.length > 0) out.push(`${parts.join(", ")}.`);
    if (isSchema(schema.items) && !isSchema(schema.items.properties) && !Array.isArray(schema.items.oneOf)) {
      const inner = constraints(schema.items);
      if (inner.length > 0) out.push(`Each: ${inner.join(" ")}`);
    }
  }
  if (Array.isArray(schema.anyOf)) {
    for (const variant of (schema.anyOf as unknown[]).filter(isSchema)) {
      const inner = constraints(variant);
      if (inner.length > 0) out.push(`${typeOf(variant)}: ${inner.join(" ")}`);
    }
  }
  if (schema.type === "object" && schema.maxProperties !== undefined && !isSchema(schema.properties)) {
    out.push(`≤ ${schema.maxProperties} keys.`);
  }
  return out;
}

/** Object-level rules (conditional requirements) rendered as sentences under a table. */
function objectRules(schema: Schema, prefix: string): string[] {
  const rules: string[] = [];
  const anyOf = Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[]).filter(isSchema) : [];
  const requiredAlternatives = anyOf.filter((variant) => Array.isArray(variant.required));
  if (requiredAlternatives.length > 0) {
    const names = requiredAlternatives.map((variant) =>
      (variant.required as string[]).map((n) => code(prefix + n)).join(" + "),
    );
    rules.push(`At least one of ${names.join(", ")} is required.`);
  }
  if (isSchema(schema.if) && isSchema(schema.then) && Array.isArray(schema.then.required)) {
    rules.push(
      `${(schema.then.required as string[]).map((n) => code(prefix + n)).join(", ")} required when ${condition(schema.if, prefix)}.`,
    );
  }
  if (isSchema(schema.dependentRequired)) {
    for (const [field, needs] of Object.entries(schema.dependentRequired)) {
      rules.push(`${code(prefix + field)} requires ${(needs as string[]).map((n) => code(prefix + n)).join(", ")}.`);
    }
  }
  if (typeof schema.minProperties === "number" && isSchema(schema.properties)) {
    rules.push(
      `At least ${schema.minProperties} fields (required ones included) must be given${prefix ? ` in ${code(prefix.replace(/\.$/, ""))}` : ""}.`,
    );
  }
  return rules;
}

function condition(ifSchema: Schema, prefix: string): string {
  const properties = isSchema(ifSchema.properties) ? ifSchema.properties : {};
  return Object.entries(properties)
    .map(([name, s]) => `${code(prefix + name)} = ${code(String(isSchema(s) ? s.const : ""))}`)
    .join(" and ");
}

/** Flattens an object schema into table rows; nested objects and arrays of objects get dotted names. */
function rowsOf(schema: Schema, prefix: string, rules: string[]): Row[] {
  const rows: Row[] = [];
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  rules.push(...objectRules(schema, prefix));
  for (const [name, value] of Object.entries(properties)) {
    if (!isSchema(value)) continue;
    const full = prefix + name;
    const notes = [typeof value.description === "string" ? value.description : "", ...constraints(value)]
      .filter(Boolean)
      .join(" ");
    rows.push({
      name: full,
      type: typeOf(value),
      required: required.has(name),
      defaultValue: value.default === undefined ? "" : JSON.stringify(value.default),
      notes,
    });
    rows.push(...nestedRows(value, full, rules));
  }
  // Conditional sub-shapes (email.render: props per template).
  const allOf = Array.isArray(schema.allOf) ? (schema.allOf as unknown[]).filter(isSchema) : [];
  for (const branch of allOf) {
    if (!isSchema(branch.if) || !isSchema(branch.then) || !isSchema(branch.then.properties)) continue;
    const label = condition(branch.if, "").replace(/`/g, "");
    for (const [name, value] of Object.entries(branch.then.properties)) {
      if (!isSchema(value)) continue;
      rows.push(...rowsOf(value, `${prefix}${name} (${label}).`, rules));
    }
  }
  return rows;
}

function nestedRows(value: Schema, full: string, rules: string[]): Row[] {
  // A nullable object (`anyOf: [object, null]`): its fields, under the same name.
  if (Array.isArray(value.anyOf)) {
    const objects = (value.anyOf as unknown[])
      .filter(isSchema)
      .filter((v) => v.type === "object" || v.type === "array");
    if (objects.length === 1) return nestedRows(objects[0], full, rules);
  }
  if (value.type === "object" && isSchema(value.properties)) return rowsOf(value, `${full}.`, rules);
  if (value.type === "object" && Array.isArray(value.allOf)) return rowsOf(value, `${full}.`, rules);
  if (value.type === "array" && isSchema(value.items)) {
    const items = value.items;
    if (isSchema(items.properties)) return rowsOf(items, `${full}[].`, rules);
    if (Array.isArray(items.oneOf)) {
      const rows: Row[] = [];
      for (const variant of (items.oneOf as unknown[]).filter(isSchema)) {
        rows.push(...rowsOf(variant, `${full}[] ⟨${String(variant.title ?? "variant")}⟩.`, rules));
      }
      return rows;
    }
  }
  return [];
}

function table(rows: Row[]): string {
  if (rows.length === 0) return "No input fields: send `{}`.\n";
  const lines = ["| Field | Type | Required | Default | Notes |", "|---|---|---|---|---|"];
  for (const row of rows) {
    lines.push(
      `| ${cell(code(row.name))} | ${cell(row.type)} | ${row.required ? "yes" : "no"} | ${row.defaultValue ? cell(code(row.defaultValue)) : ""} | ${cell(row.notes)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Result fields: the same rows, read as "always present" instead of "required". */
function resultTable(rows: Row[]): string {
  if (rows.length === 0) return "The result has no fields.\n";
  const lines = ["| Field | Type | Always present | Notes |", "|---|---|---|---|"];
  for (const row of rows) {
    lines.push(`| ${cell(code(row.name))} | ${cell(row.type)} | ${row.required ? "yes" : "no"} | ${cell(row.notes)} |`);
  }
  return `${lines.join("\n")}\n`;
}

function renderResult(schema: Schema): string {
  const variants = Array.isArray(schema.oneOf) ? (schema.oneOf as unknown[]).filter(isSchema) : [schema];
  const parts: string[] = [];
  if (variants.length > 1 && typeof schema.description === "string") parts.push(`${schema.description}\n`);
  for (const variant of variants) {
    const rules: string[] = [];
    const rows = rowsOf(variant, "", rules);
    if (variants.length > 1) {
      parts.push(
        `**Variant ${code(String(variant.title ?? "?"))}**${typeof variant.description === "string" ? `: ${variant.description}` : ""}\n`,
      );
    }
    parts.push(rows.length > 0 || !isSchema(variant.properties) ? resultTable(rows) : "The result has no fields.\n");
  }
  return parts.join("\n");
}

/** Whether the owner has a handler: `services/<owner>/src/abilities/<id>.ts` exists (the kit loads it by name). */
function isWired(ability: AbilityDef): boolean {
  if (ability.service === "gateway") return true;
  return existsSync(
    fileURLToPath(new URL(`../../services/${ability.service}/src/abilities/${ability.id}.ts`, import.meta.url)),
  );
}

/** The errors a call of this ability can answer, beyond the transport ones every call can. */
function renderErrors(ability: AbilityDef): string {
  const props = isSchema(ability.input.properties) ? ability.input.properties : {};
  const variants = Array.isArray(ability.input.oneOf) ? (ability.input.oneOf as unknown[]).filter(isSchema) : [];
  const names = new Set([
    ...Object.keys(props),
    ...variants.flatMap((v) => Object.keys(isSchema(v.properties) ? v.properties : {})),
  ]);
  const lines = [
    "- `400 validation_failed`: the input does not match the schema above (`details` names each field).",
    "- `401 unauthorized`, `403 forbidden` (the key's scopes exclude the ability), `429 rate_limited`, `503 unavailable` (retry after `retryAfterMs`).",
  ];
  if (names.has("cursor"))
    lines.push("- `400 validation_failed` with detail code `invalid_cursor`: a cursor this list did not issue.");
  if ([...names].some((n) => n === "id" || n.endsWith("Id")))
    lines.push(
      "- `404 not_found` with detail code `record_not_found`: a named record does not exist in the caller's tenant (`details[].path` names it; an unknown ability id is `404 unknown_ability`, detail `ability_not_found`).",
    );
  if (names.has("idempotencyKey"))
    lines.push(
      "- `409 conflict`: the idempotencyKey was used before with different input (`details` names the fields).",
    );
  if (!isWired(ability)) {
    lines.push(
      `- \`501 not_implemented\`: declared, not wired yet (the ${ability.service} service has no handler for it).`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function renderFields(schema: Schema): string {
  const parts: string[] = [];
  if (Array.isArray(schema.oneOf)) {
    if (typeof schema.description === "string") parts.push(`${schema.description}\n`);
    for (const variant of (schema.oneOf as unknown[]).filter(isSchema)) {
      const rules: string[] = [];
      const rows = rowsOf(variant, "", rules);
      parts.push(
        `**Variant ${code(String(variant.title ?? "?"))}**${typeof variant.description === "string" ? `: ${variant.description}` : ""}\n`,
      );
      parts.push(table(rows));
      if (rules.length > 0) parts.push(`${rules.map((rule) => `- ${rule}`).join("\n")}\n`);
    }
    return parts.join("\n");
  }
  const rules: string[] = [];
  const rows = rowsOf(schema, "", rules);
  parts.push(table(rows));
  if (rules.length > 0) parts.push(`${rules.map((rule) => `- ${rule}`).join("\n")}\n`);
  return parts.join("\n");
}

function anchor(id: string): string {
  return id.replace(/[^a-z0-9_-]/g, "");
}

function renderAbility(ability: AbilityDef): string {
  const source =
    ability.inputSource === "spec"
      ? "from the [API spec](spec/ability-api.md) §4.3, with what it leaves open decided by Gantry"
      : "Gantry's design (the API spec names the ability but does not show its input)";
  const out = [
    `### ${ability.id}`,
    "",
    ability.summary,
    "",
    `- Owner service: ${code(ability.service)}`,
    `- Input shape: ${source}`,
    `- Call: ${code(`POST /v1/abilities/${ability.id}`)}`,
  ];
  if (decisions[ability.id] !== undefined) out.push(`- Decision: ${decisions[ability.id]}`);
  out.push(
    "",
    "**Input**",
    "",
    renderFields(ability.input),
    "**Result** (`result` of the success envelope `{ok, ability, result, duration}`)",
    "",
    renderResult(ability.output),
    "**Errors**",
    "",
    renderErrors(ability),
    "Example request body:",
    "",
    "```json",
    JSON.stringify({ input: ability.example }, null, 2),
    "```",
    "",
  );
  return out.join("\n");
}

/** The whole reference page. */
export function renderDocs(): string {
  const out: string[] = [
    "# Gantry abilities",
    "",
    "<!-- Generated by proto/catalogue/render-docs.ts from the catalogue; do not edit by hand. -->",
    "<!-- Regenerate: node proto/catalogue/render-docs.ts > docs/abilities.md -->",
    "",
    `Gantry exposes ${catalogue.length} abilities in ${areas.length} areas. Each is called as ` +
      "`POST /v1/abilities/<id>` (or `POST /abilities/execute` with `ability` in the body) with the JSON body " +
      '`{"input": …, "context"?: …}`, authenticated with `Authorization: Bearer <API_KEY>`. Inputs are JSON Schema ' +
      "draft 2020-12, validated strictly: unknown fields, wrong types and out-of-range values are refused with 400 " +
      "and the validation errors in `details`; defaults shown below are applied before the ability runs.",
    "",
    "## Decisions where the spec is silent",
    "",
    "Conventions for every ability:",
    "",
    ...conventions.map((line) => `- ${line}`),
    "",
    "Per ability (*Gantry's design*: the spec names the ability but not its input, so the whole input shape is Gantry's; *spec, completed*: the spec's fields, with what it leaves open decided by Gantry):",
    "",
  ];
  for (const id of Object.keys(decisions).sort()) {
    const ability = abilityById.get(id);
    const tag = ability?.inputSource === "ours" ? "Gantry's design" : "spec, completed";
    out.push(`- [${code(id)}](#${anchor(id)}) (*${tag}*): ${decisions[id]}`);
  }
  out.push("", "## Areas", "");
  for (const area of areas) {
    const ids = catalogue
      .filter((ability) => ability.area === area)
      .map((ability) => `[${code(ability.id)}](#${anchor(ability.id)})`);
    out.push(`- **${area}**: ${ids.join(", ")}`);
  }
  out.push("");
  for (const area of areas) {
    out.push(`## ${area}`, "");
    for (const ability of catalogue.filter((a) => a.area === area)) out.push(renderAbility(ability));
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(renderDocs());
}
