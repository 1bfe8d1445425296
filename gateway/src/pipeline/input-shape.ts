/**
 * @module gateway/pipeline/input-shape
 * Refuses inputs whose shape would cost the gateway or a service more than their content is worth,
 * before the schema sees them:
 *
 * - **U+0000** anywhere (string values and object keys). JSON allows it, but Postgres text cannot
 *   hold it (error 22021), so it would otherwise surface as a 500 from whichever service stores it.
 * - **Nesting deeper than {@link MAX_DEPTH}** levels. No ability's input needs it, and validation,
 *   hashing and protobuf encoding all recurse: a 1 MiB body of `[[[[…` would overflow their stacks
 *   (a 500) after holding the process for a while.
 * - **A field name longer than {@link MAX_FIELD_NAME} characters.** The longest name any schema
 *   allows is 64 (metadata keys); a 1 MiB name would be escaped into every JSON Pointer that names
 *   it (hundreds of ms for a name of slashes) before being refused.
 *
 * Each is a 400 naming where it is. The walk is iterative, so a hostile body cannot overflow it.
 */
import { GantryError, type ErrorDetail } from "@gantry/kit";

/** At most this many places are named; the message counts the rest. */
const MAX_DETAILS = 20;
/** Levels of objects and arrays below `input`. */
export const MAX_DEPTH = 32;
/** Characters in one object key. */
export const MAX_FIELD_NAME = 256;
const NUL = "\u0000";

/** A JSON Pointer token (RFC 6901: `~` → `~0`, `/` → `~1`). */
function token(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function nulDetail(path: string): ErrorDetail {
  // The path itself may hold the NUL (an object key); the message shows it escaped so it stays readable.
  return {
    path,
    message: `${path.replaceAll(NUL, "\\u0000")} contains a NUL character (U+0000), which is not accepted; remove it`,
    code: "nul_character",
  };
}

/** Throws `validation_failed` with a detail per place `input` has a shape that is not accepted. */
export function refuseBadShape(abilityId: string, input: unknown, root = "/input"): void {
  // Nearly every input is fine: the first walk builds no JSON Pointers and stops at the first bad
  // place; only an input that has one is walked again, naming each place (so `found` is at least 1).
  let bad = false;
  walkShape(input, root, false, () => (bad = true));
  if (!bad) return;
  const details: ErrorDetail[] = [];
  let found = 0;
  walkShape(input, root, true, (detail) => {
    if (found++ < MAX_DETAILS) details.push(detail());
    return false;
  });
  const first = details[0];
  const more = found > 1 ? ` and ${found - 1} more` : "";
  const message =
    first.code === "nul_character"
      ? `Input of ${abilityId} contains NUL characters (U+0000), which are not accepted: remove them (${first.path.replaceAll(NUL, "\\u0000")}${more}).`
      : `Input of ${abilityId} is not accepted: ${first.message.replaceAll(NUL, "\\u0000")}${more ? ` (${more.trim()})` : ""}.`;
  throw new GantryError("validation_failed", message, { details });
}

/**
 * Told of a bad place; the detail is built only if asked for (its path is empty without
 * `withPaths`). Returns true to stop the walk there.
 */
type Report = (detail: () => ErrorDetail) => boolean;

/** Walks `input` in document order, reporting each bad place until `report` says stop. */
function walkShape(input: unknown, root: string, withPaths: boolean, report: Report): void {
  // [value, its path (only withPaths), its depth, whether the key naming it holds a NUL]: popped in document order.
  const stack: [unknown, string, number, boolean][] = [[input, root, 0, false]];
  while (stack.length > 0) {
    const [value, path, depth, nulKey] = stack.pop()!;
    if (nulKey && report(() => nulDetail(path))) return;
    if (typeof value === "string") {
      if (value.includes(NUL) && report(() => nulDetail(path))) return;
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_DEPTH) {
      const detail = (): ErrorDetail => ({
        path,
        message: `${path} nests objects or lists more than ${MAX_DEPTH} levels deep below ${root}; flatten it`,
        code: "nested_too_deep",
        params: { limit: MAX_DEPTH },
      });
      if (report(detail)) return;
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push([value[i], withPaths ? `${path}/${i}` : "", depth + 1, false]);
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      if (key.length > MAX_FIELD_NAME) {
        const detail = (): ErrorDetail => ({
          path,
          message: `${path} has a field name of ${key.length} characters; field names are at most ${MAX_FIELD_NAME}`,
          code: "field_name_too_long",
          params: { limit: MAX_FIELD_NAME },
        });
        if (report(detail)) return;
        continue;
      }
      const child = (value as Record<string, unknown>)[key];
      stack.push([child, withPaths ? `${path}/${token(key)}` : "", depth + 1, key.includes(NUL)]);
    }
  }
}
