/**
 * @module kit/logger
 * One JSON logger for every process. Secrets are redacted by field name, at any depth, before
 * anything is written, so a handler that logs a whole object cannot leak a key. With OpenTelemetry
 * on, a line written during a call carries its `trace_id` and `span_id` (kit/telemetry), next to the
 * `requestId`.
 */
import { pino, type Logger } from "pino";
import { logTraceFields } from "./telemetry.ts";

export type { Logger };

/**
 * A field whose name says it holds a secret, in any spelling: `access_token`, `adminKey`,
 * `clientSecret`, `X-Api-Key`, `Authorization`, `private_key`… (compared without case, `_` or `-`).
 * Matched by name at any depth, not by a list of exact paths, which let `access_token` and
 * `adminKey` through.
 */
const SECRET_NAME =
  /password|passwd|passphrase|secret|token|authorization|apikey|privatekey|adminkey|cookie|^key$|^pass$/;
/** Names that match but hold no secret, and help whoever reads the log. */
const NOT_SECRET = new Set(["tokentype", "credentialsource", "secrethashprefix"]);

const isSecretName = (name: string) => {
  const n = name.toLowerCase().replace(/[-_]/g, "");
  return SECRET_NAME.test(n) && !NOT_SECRET.has(n);
};

/** A copy of `value` with every secret-named field replaced by `[redacted]` (objects and arrays, 8 levels). */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > 8 || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value))
    out[name] = isSecretName(name) ? "[redacted]" : redactSecrets(v, depth + 1);
  return out;
}

export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? "info",
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redactSecrets(object) as Record<string, unknown>,
    },
    mixin: logTraceFields,
  };
  return destination ? pino(options, destination) : pino(options);
}
