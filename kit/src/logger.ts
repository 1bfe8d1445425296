/**
 * @module kit/logger
 * One JSON logger for every process. Secrets are redacted by path before anything is written, so
 * a handler that logs a whole object cannot leak a key. With OpenTelemetry on, a line written
 * during a call carries its `trace_id` and `span_id` (kit/telemetry), next to the `requestId`.
 */
import { pino, type Logger } from "pino";
import { logTraceFields } from "./telemetry.ts";

export type { Logger };

export const REDACT_PATHS = [
  "key",
  "secret",
  "password",
  "token",
  "authorization",
  "headers.authorization",
  "req.headers.authorization",
  "*.key",
  "*.secret",
  "*.password",
  "*.token",
  "*.authorization",
];

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: logTraceFields,
  });
}
