/**
 * @module kit/data/extended-query
 * The messages of one execution of a named prepared statement (Parse when the connection has not
 * parsed it yet, Bind, Describe when the result's shape is not known yet, Execute, Sync) as one
 * buffer, for one socket write.
 *
 * pg's serializer builds each message in a writer that starts at 256 bytes and is thrown away after
 * every message, so a payout's ~1.5 KB Bind grew and was copied three times, and the messages went
 * out as a corked `writev` of four buffers. Here the values are written once into a scratch buffer
 * that keeps its size between executions, then copied out at their exact length (the socket may
 * hold what it is given past the write call, so the scratch buffer itself is never handed over).
 *
 * The bytes are the ones pg sends: values go through pg's `prepareValue`, except the kinds whose
 * text is plain to produce the same way (strings, numbers, booleans, and arrays of those and of
 * null, quoted as pg's `arrayString` quotes them), which skip its type checks; extended-query.test.ts
 * compares the buffer with pg's own messages for every kind of value.
 */
import { createRequire } from "node:module";

const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
  prepareValue: (value: unknown) => unknown;
};

const QUOTE_OR_BACKSLASH = /["\\]/;
const BACKSLASHES = /\\/g;
const QUOTES = /"/g;

/** An array element as pg's `arrayString` writes it. */
function element(text: string): string {
  if (!QUOTE_OR_BACKSLASH.test(text)) return `"${text}"`;
  return `"${text.replace(BACKSLASHES, "\\\\").replace(QUOTES, '\\"')}"`;
}

/** A flat array of strings, numbers, booleans and nulls as pg's array literal; undefined for anything else. */
function plainArray(values: unknown[]): string | undefined {
  let text = "{";
  for (let i = 0; i < values.length; i++) {
    if (i > 0) text += ",";
    const item = values[i];
    if (item == null) text += "NULL";
    else if (typeof item === "string") text += element(item);
    else if (typeof item === "number" || typeof item === "boolean") text += element(String(item));
    else return undefined;
  }
  return `${text}}`;
}

/** What pg would send for `value`: text, bytes (sent in binary format) or null. */
export function wireValue(value: unknown): string | Buffer | null {
  if (value == null) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    const text = plainArray(value);
    if (text !== undefined) return text;
  }
  return prepareValue(value) as string | Buffer | null;
}

let scratch = Buffer.allocUnsafe(4096);

function ensure(bytes: number): void {
  if (scratch.length < bytes) scratch = Buffer.allocUnsafe(Math.max(bytes, scratch.length * 2));
}

/** Writes `text` and a terminating zero at `at`; returns the offset after them. */
function cString(text: string, at: number): number {
  const end = at + scratch.write(text, at, "utf8");
  scratch[end] = 0;
  return end + 1;
}

const DESCRIBE_PORTAL = [0x44, 0, 0, 0, 6, 0x50, 0];
const EXECUTE_SYNC = [0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0x53, 0, 0, 0, 4];
/** Sync alone: ends an exchange whose values could not be serialised, so the client gets its ReadyForQuery. */
export const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);

/**
 * The messages for one execution of statement `name`, in one buffer. `text` is given when the
 * statement must be parsed first; `describe` asks for the result's shape. Throws, having built
 * nothing, when a value cannot be serialised.
 */
export function executionMessages(
  name: string,
  text: string | undefined,
  values: readonly unknown[],
  describe: boolean,
): Buffer {
  const n = values.length;
  const wire: Array<string | Buffer | null> = new Array(n);
  // UTF-8 takes at most 3 bytes per UTF-16 unit: an upper bound, so the writes below never overflow.
  let bound = 64 + 3 * name.length * 2 + (text === undefined ? 0 : 3 * text.length) + 6 * n;
  for (let i = 0; i < n; i++) {
    const v = wireValue(values[i]);
    wire[i] = v;
    if (v !== null) bound += typeof v === "string" ? 3 * v.length : v.length;
  }
  ensure(bound);
  let at = 0;
  if (text !== undefined) {
    scratch[at] = 0x50; // Parse: name, text, no parameter types (Postgres infers them)
    const start = at + 1;
    at = cString(text, cString(name, start + 4));
    scratch.writeInt16BE(0, at);
    at += 2;
    scratch.writeInt32BE(at - start, start);
  }
  scratch[at] = 0x42; // Bind: unnamed portal, the statement, a format code per value, the values, text results
  const bindStart = at + 1;
  at = cString(name, bindStart + 5); // the portal's name is the empty string: a single zero
  scratch[bindStart + 4] = 0;
  scratch.writeInt16BE(n, at);
  const formats = at + 2;
  at = formats + 2 * n;
  scratch.writeInt16BE(n, at);
  at += 2;
  for (let i = 0; i < n; i++) {
    const v = wire[i];
    scratch[formats + 2 * i] = 0;
    if (v === null) {
      scratch[formats + 2 * i + 1] = 0;
      scratch.writeInt32BE(-1, at);
      at += 4;
    } else if (typeof v === "string") {
      scratch[formats + 2 * i + 1] = 0;
      const length = scratch.write(v, at + 4, "utf8");
      scratch.writeInt32BE(length, at);
      at += 4 + length;
    } else {
      scratch[formats + 2 * i + 1] = 1;
      scratch.writeInt32BE(v.length, at);
      v.copy(scratch, at + 4);
      at += 4 + v.length;
    }
  }
  scratch.writeInt16BE(1, at);
  scratch.writeInt16BE(0, at + 2);
  at += 4;
  scratch.writeInt32BE(at - bindStart, bindStart);
  if (describe) for (const byte of DESCRIBE_PORTAL) scratch[at++] = byte;
  for (const byte of EXECUTE_SYNC) scratch[at++] = byte;
  const out = Buffer.allocUnsafe(at);
  scratch.copy(out, 0, 0, at);
  return out;
}
