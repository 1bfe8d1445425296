/**
 * @module workspace/errors
 * The refusals every workspace handler shares, worded once (a missing record: the kit's `notFound`).
 */
import { GantryError } from "@gantry/kit";

export function invalidField(path: string, message: string, code: string): GantryError {
  return new GantryError("validation_failed", `${path} ${message}`, {
    details: [{ path, message: `${path} ${message}`, code }],
  });
}

/** A required line that is only whitespace is refused (the schema's minLength counts spaces). */
export function nonBlank(value: string, path: string): string {
  const v = value.trim();
  if (!v) throw invalidField(path, "must not be blank", "blank");
  return v;
}
