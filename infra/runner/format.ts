/**
 * @module infra/runner/format
 * How `npm start` prints process output: `name | line`, with the name coloured per process and
 * JSON (pino) lines shown as `time level msg key=value…` on a terminal. Without a terminal (or
 * with NO_COLOR) lines stay raw, so logs can be piped to `jq` or a file.
 *
 * @example
 * const fmt = createFormatter({ pretty: true, color: true, width: 11 });
 * process.stdout.write(fmt("keys", '{"level":"info","time":"2026-01-01T00:00:00Z","msg":"up"}') + "\n");
 */

export interface FormatOptions {
  /** Rewrite JSON log lines as `time level msg key=value`. */
  pretty: boolean;
  /** Use ANSI colours. */
  color: boolean;
  /** Width the process name is padded to. */
  width: number;
}

const ESC = "\u001b[";
const paint = (code: string) => (s: string) => `${ESC}${code}m${s}${ESC}0m`;
export const ansi = {
  bold: paint("1"),
  dim: paint("2"),
  red: paint("31"),
  green: paint("32"),
  yellow: paint("33"),
  blue: paint("34"),
  magenta: paint("35"),
  cyan: paint("36"),
  gray: paint("90"),
};

const NAME_COLORS = [ansi.cyan, ansi.magenta, ansi.blue, ansi.yellow, ansi.green, ansi.red];
const DEPENDENCIES = new Set(["postgres", "nats", "redis"]);

const LEVELS: Record<string, string> = {
  "10": "trace",
  "20": "debug",
  "30": "info",
  "40": "warn",
  "50": "error",
  "60": "fatal",
};

const LEVEL_COLORS: Record<string, (s: string) => string> = {
  trace: ansi.gray,
  debug: ansi.blue,
  info: ansi.green,
  warn: ansi.yellow,
  error: ansi.red,
  fatal: ansi.magenta,
};

/** Fields that are already shown (or are noise) in the pretty form. */
const HIDDEN = new Set(["level", "time", "msg", "message", "service", "pid", "hostname", "v"]);

function formatTime(value: unknown): string {
  const d = typeof value === "number" || typeof value === "string" ? new Date(value) : new Date();
  if (Number.isNaN(d.getTime())) return String(value);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

function formatValue(v: unknown): string {
  if (typeof v === "string") return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
}

/** `time level msg key=value…` for a pino JSON line, or undefined when the line is not one. */
export function prettyJson(line: string, color: boolean): string | undefined {
  if (!line.startsWith("{")) return undefined;
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!rec || typeof rec !== "object" || Array.isArray(rec)) return undefined;
  const level = LEVELS[String(rec.level)] ?? String(rec.level ?? "info");
  const msg = String(rec.msg ?? rec.message ?? "");
  const rest = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => {
      if (k === "err" && v && typeof v === "object" && "stack" in v)
        return `\n${String((v as { stack: unknown }).stack)}`;
      return `${k}=${formatValue(v)}`;
    })
    .join(" ");
  const lvl = level.toUpperCase().padEnd(5);
  const parts = [
    color ? ansi.gray(formatTime(rec.time)) : formatTime(rec.time),
    color ? (LEVEL_COLORS[level] ?? ((s: string) => s))(lvl) : lvl,
    msg,
    rest && (color ? ansi.gray(rest) : rest),
  ].filter(Boolean);
  return parts.join(" ");
}

/** A function turning `(process name, raw line)` into one printable line. */
export function createFormatter(opts: FormatOptions): (proc: string, line: string) => string {
  const colors = new Map<string, (s: string) => string>();
  const colorFor = (proc: string) => {
    if (proc === "runner") return ansi.bold;
    if (DEPENDENCIES.has(proc)) return ansi.gray;
    let c = colors.get(proc);
    if (!c) {
      c = NAME_COLORS[colors.size % NAME_COLORS.length];
      colors.set(proc, c);
    }
    return c;
  };
  return (proc, line) => {
    const name = proc.padEnd(opts.width);
    const prefix = opts.color ? `${colorFor(proc)(name)} ${ansi.gray("|")}` : `${name} |`;
    let body = line;
    if (opts.pretty) body = prettyJson(line, opts.color) ?? line;
    if (opts.color && DEPENDENCIES.has(proc)) body = ansi.dim(body);
    if (opts.color && proc === "runner") body = ansi.bold(body);
    return `${prefix} ${body}`;
  };
}
