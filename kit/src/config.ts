/**
 * @module kit/config
 * The one config loader. Each process declares its environment as a JSON Schema; the environment
 * is parsed once at start, coerced to the declared types, defaulted, and any problem stops the
 * process with a message naming every bad variable and what it expects.
 *
 * The TypeScript type of a configuration is derived from its schema (`ConfigOf`), so a variable is
 * declared once: a variable with a `default` or `required: true` is always present, others optional;
 * `enum` gives a union, `integer`/`number` a number, `boolean` a boolean, `array` a string list.
 *
 * @example
 * const ENV = defineEnv({ PORT: { type: "integer", minimum: 0, maximum: 65535, default: 8080, description: "HTTP port" } });
 * const config = loadConfig("gateway", ENV); // config.PORT: number
 */
import { Ajv2020 } from "ajv/dist/2020.js";

/** One environment variable: a JSON Schema for its value plus `description` and `required`. */
export interface EnvVar {
  description: string;
  type?: "string" | "integer" | "number" | "boolean" | "array";
  enum?: readonly string[];
  default?: unknown;
  /** The process does not start without it. */
  required?: boolean;
  [keyword: string]: unknown;
}

export type EnvSchema = Record<string, EnvVar>;

type ValueOf<V> = V extends { enum: readonly (infer E)[] }
  ? E
  : V extends { type: "integer" | "number" }
    ? number
    : V extends { type: "boolean" }
      ? boolean
      : V extends { type: "array" }
        ? string[]
        : string;

type Present<V> = V extends { default: unknown } ? true : V extends { required: true } ? true : false;

/** The parsed configuration of an env schema. */
export type ConfigOf<E extends EnvSchema> = {
  -readonly [K in keyof E as Present<E[K]> extends true ? K : never]: ValueOf<E[K]>;
} & {
  -readonly [K in keyof E as Present<E[K]> extends true ? never : K]?: ValueOf<E[K]>;
};

/** Declares an env schema keeping its literal types (so `ConfigOf` can read them). */
export function defineEnv<const E extends EnvSchema>(schema: E): E {
  return schema;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Empty strings count as unset: `FOO= npm start` should not override a default with "". */
function presentEnv(env: NodeJS.ProcessEnv, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = env[key];
    if (value !== undefined && value !== "") out[key] = value;
  }
  return out;
}

export function loadConfig<const E extends EnvSchema>(
  processName: string,
  schema: E,
  required: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): ConfigOf<E> {
  // validateSchema off: checking the schema (ours, built from `schema` above) against JSON Schema's
  // meta-schema first compiles that meta-schema, 50-120 ms of CPU at every process's start.
  const ajv = new Ajv2020({
    allErrors: true,
    coerceTypes: "array",
    useDefaults: true,
    strict: false,
    validateSchema: false,
  });
  const properties: Record<string, object> = {};
  const mustHave = new Set(required);
  for (const [key, { required: req, ...prop }] of Object.entries(schema)) {
    properties[key] = prop;
    if (req) mustHave.add(key);
  }
  const validate = ajv.compile({ type: "object", properties, required: [...mustHave] });
  const values: Record<string, unknown> = presentEnv(env, Object.keys(schema));
  for (const [key, prop] of Object.entries(schema)) {
    // Comma-separated lists are the only list form an environment variable has.
    if (prop.type === "array" && typeof values[key] === "string") {
      values[key] = (values[key] as string)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
    }
    // Flags are also written 1/0 (GANTRY_CHECK_RESULTS=1); Ajv coerces only "true"/"false".
    if (prop.type === "boolean" && (values[key] === "1" || values[key] === "0")) values[key] = values[key] === "1";
  }
  if (!validate(values)) {
    const lines = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, "").split("/")[0] || String(e.params.missingProperty ?? "");
      const prop = schema[name];
      return `  ${name}: ${e.message}${prop ? ` (${prop.description})` : ""}`;
    });
    throw new ConfigError(`${processName}: invalid configuration\n${lines.join("\n")}`);
  }
  return values as ConfigOf<E>;
}
