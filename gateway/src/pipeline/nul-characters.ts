/**
 * @module gateway/pipeline/nul-characters
 * Refuses U+0000 anywhere in an ability's input (string values and object keys, at any depth).
 * JSON allows it, but Postgres text cannot hold it (error 22021), so it would otherwise surface
 * as a 500 from whichever service stores the value; here it is a 400 naming where it is.
 *
 * The walk is iterative: inputs nest as deep as the body limit allows, and a recursive walk
 * could overflow the stack on a hostile body.
 */
import { GantryError, type ErrorDetail } from "@gantry/kit";

/** At most this many places are named; the message counts the rest. */
const MAX_DETAILS = 20;
const NUL = "\u0000";

/** A JSON Pointer token (RFC 6901: `~` → `~0`, `/` → `~1`). */
function token(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function detail(path: string): ErrorDetail {
  // The path itself may hold the NUL (an object key); the message shows it escaped so it stays readable.
  return {
    path,
    message: `${path.replaceAll(NUL, "\\u0000")} contains a NUL character (U+0000), which is not accepted; remove it`,
    code: "nul_character",
  };
}

/** Throws `validation_failed` with a detail per place `input` holds a NUL character. */
export function refuseNulCharacters(abilityId: string, input: unknown, root = "/input"): void {
  const details: ErrorDetail[] = [];
  let found = 0;
  // [value, its path, whether the key naming it holds a NUL]: popped in document order.
  const stack: [unknown, string, boolean][] = [[input, root, false]];
  while (stack.length > 0) {
    const [value, path, nulKey] = stack.pop()!;
    if (nulKey && found++ < MAX_DETAILS) details.push(detail(path));
    if (typeof value === "string") {
      if (value.includes(NUL) && found++ < MAX_DETAILS) details.push(detail(path));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}/${i}`, false]);
    } else if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push([(value as Record<string, unknown>)[keys[i]], `${path}/${token(keys[i])}`, keys[i].includes(NUL)]);
    }
  }
  if (found === 0) return;
  throw new GantryError(
    "validation_failed",
    `Input of ${abilityId} contains NUL characters (U+0000), which are not accepted: remove them (${details[0].path.replaceAll(NUL, "\\u0000")}${found > 1 ? ` and ${found - 1} more` : ""}).`,
    { details },
  );
}
