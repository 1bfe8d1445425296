/**
 * @module gateway/discovery/abilities
 * What a key may call, as the developer surfaces present it: `GET /v1/abilities`, the docs page
 * (HTML and Markdown), MCP `tools/list` and capability.discover all build on {@link abilitiesFor}
 * and {@link inputFields}, reading the catalogue (the single source of truth) and the live status.
 *
 * @example
 * const list = await abilitiesFor(key.scopes, deps.liveStatus);
 * list[0]; // { id, area, description, input, example, status: "live", live: true, path, ... }
 */
import { catalogue, decisions, keyMayCall, type AbilityDef, type JsonSchema } from "@gantry/proto/catalogue";
import type { AbilityNeedView } from "../executors/types.ts";
import type { AbilityState, AbilityStatus, LiveStatus } from "./live-status.ts";

export interface AbilityView {
  id: string;
  area: string;
  description: string;
  /** `spec`: the input shape is given by the spec; `ours`: the spec said "not shown" and we decided it. */
  inputSource: "spec" | "ours";
  method: "POST";
  /** Path of the per-ability call (the generic `/abilities/execute` envelope works too). */
  path: string;
  input: JsonSchema;
  example: Record<string, unknown>;
  status: AbilityStatus;
  live: boolean;
  /**
   * What it still needs on this deployment: with `part: null` the whole ability (status
   * `needs_configuration`), otherwise one part of a live ability (e.g. `channel sms`). Empty when
   * everything runs.
   */
  needs: AbilityNeedView[];
}

/** One input field, flattened for tables and search (variants of union inputs are labelled). */
export interface InputField {
  name: string;
  type: string;
  required: boolean;
  description: string;
  default?: unknown;
  values?: unknown[];
  /** For union inputs: which variant the field belongs to (e.g. `variant 2`). */
  variant?: string;
}

/** True when a key with these scopes may call the ability (the pipeline's own rule: a scope grants it, or it is open to every key). */
export function inScope(scopes: readonly string[], id: string): boolean {
  return keyMayCall(scopes, id);
}

/** The catalogue entries the scopes grant, sorted by id. */
export function allowedDefs(scopes: readonly string[]): AbilityDef[] {
  return catalogue.filter((a) => inScope(scopes, a.id));
}

export function toView(def: AbilityDef, { status, needs }: AbilityState): AbilityView {
  return {
    id: def.id,
    area: def.area,
    description: def.summary,
    inputSource: def.inputSource,
    method: "POST",
    path: `/v1/abilities/${def.id}`,
    input: def.input,
    example: def.example,
    status,
    live: status === "live",
    needs,
  };
}

/** A view with what the docs show besides the schema: flattened input fields and our input notes. */
export function withDetails(view: AbilityView): AbilityView & { fields: InputField[]; notes?: string } {
  const notes = decisions[view.id];
  return { ...view, fields: inputFields(view), ...(notes ? { notes } : {}) };
}

const UNAVAILABLE: AbilityState = { status: "unavailable", needs: [] };

/** One line per need, for descriptions: `channel sms: <message>` (the whole ability: just the message). */
export function needsText(needs: readonly AbilityNeedView[]): string {
  return needs.map((n) => (n.part ? `${n.part}: ${n.message}` : n.message)).join(" ");
}

/** The abilities `scopes` grant, with live status, sorted by id. */
export async function abilitiesFor(scopes: readonly string[], liveStatus: LiveStatus): Promise<AbilityView[]> {
  const defs = allowedDefs(scopes);
  const states = await liveStatus.details(defs.map((d) => d.id));
  return defs.map((d) => toView(d, states.get(d.id) ?? UNAVAILABLE));
}

/** A schema's type as tables and search show it: `string`, `string[]`, `"a" | "b"`, … */
function typeOf(s: JsonSchema): string {
  if (typeof s.type === "string") {
    if (s.type === "array" && s.items && typeof s.items === "object") return `${typeOf(s.items as JsonSchema)}[]`;
    return s.type;
  }
  if (Object.hasOwn(s, "const")) return JSON.stringify(s.const);
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alts)) return [...new Set(alts.map(typeOf))].join(" | ");
  return "any";
}

function fieldsOf(schema: JsonSchema, variant?: string): InputField[] {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => {
    const f: InputField = {
      name,
      type: typeOf(s),
      required: required.has(name),
      description: typeof s.description === "string" ? s.description : "",
    };
    if (Object.hasOwn(s, "default")) f.default = s.default;
    if (Array.isArray(s.enum)) f.values = s.enum;
    else if (Object.hasOwn(s, "const")) f.values = [s.const];
    if (variant) f.variant = variant;
    return f;
  });
}

/**
 * The top-level input fields of an ability; for a union input (`oneOf`/`anyOf` of objects) the
 * fields of every variant, labelled `variant N` (or by the variant's `action` constant).
 */
export function inputFields(def: Pick<AbilityDef, "input">): InputField[] {
  const out = fieldsOf(def.input);
  const alts = (def.input.oneOf ?? def.input.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(alts)) {
    alts.forEach((alt, i) => {
      const action = (alt.properties as Record<string, JsonSchema> | undefined)?.action;
      const label =
        action && Object.hasOwn(action, "const")
          ? `action=${String(action.const)}`
          : typeof alt.title === "string"
            ? alt.title
            : `variant ${i + 1}`;
      for (const f of fieldsOf(alt, label))
        if (!out.some((o) => o.name === f.name && o.variant === undefined)) out.push(f);
    });
  }
  return out;
}

/** Every `default` in an ability's input schema, by JSON Pointer (spec §8 defaults and ours). */
export function schemaDefaults(def: Pick<AbilityDef, "input">): { path: string; value: unknown }[] {
  const out: { path: string; value: unknown }[] = [];
  const walk = (s: unknown, path: string) => {
    if (!s || typeof s !== "object" || Array.isArray(s)) return;
    const o = s as JsonSchema;
    if (Object.hasOwn(o, "default") && path) out.push({ path, value: o.default });
    for (const [name, sub] of Object.entries((o.properties ?? {}) as Record<string, unknown>))
      walk(sub, `${path}/${name}`);
    for (const k of ["oneOf", "anyOf", "allOf"])
      if (Array.isArray(o[k])) for (const sub of o[k] as unknown[]) walk(sub, path);
  };
  walk(def.input, "");
  // Variants may repeat a field: keep each path once.
  return out.filter((d, i) => out.findIndex((e) => e.path === d.path) === i);
}
