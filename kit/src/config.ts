/**
 * @module kit/config
 * The one config loader. Each process declares its environment as a JSON Schema; the environment
 * is parsed once at start, coerced to the declared types, defaulted, and any problem stops the
 * process with a message naming every bad variable and what it expects.
 *
 * @example
 * const config = loadConfig<{ PORT: number }>("gateway", {
 *   PORT: { type: "integer", minimum: 0, maximum: 65535, default: 8080, description: "HTTP port" },
 * });
 */
import { Ajv2020 } from "ajv/dist/2020.js";

export type EnvSchema = Record<string, { description: string; [key: string]: unknown }>;

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

export function loadConfig<T>(
  processName: string,
  schema: EnvSchema,
  required: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): T {
  const ajv = new Ajv2020({ allErrors: true, coerceTypes: "array", useDefaults: true, strict: false });
  const validate = ajv.compile({ type: "object", properties: schema, required });
  const values: Record<string, unknown> = presentEnv(env, Object.keys(schema));
  for (const [key, prop] of Object.entries(schema)) {
    // Comma-separated lists are the only list form an environment variable has.
    if (prop.type === "array" && typeof values[key] === "string") {
      values[key] = (values[key] as string).split(",").map((s) => s.trim()).filter(Boolean);
    }
  }
  if (!validate(values)) {
    const lines = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.replace(/^\//, "").split("/")[0] || String(e.params.missingProperty ?? "");
      const prop = schema[name];
      return `  ${name}: ${e.message}${prop ? ` (${prop.description})` : ""}`;
    });
    throw new ConfigError(`${processName}: invalid configuration\n${lines.join("\n")}`);
  }
  return values as T;
}
