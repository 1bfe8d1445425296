/**
 * @module workspace/errors
 * The refusals every workspace handler shares, worded once.
 */
import { GantryError } from "@gantry/kit";

/** 404 for a record that does not exist *in the caller's tenant* (another tenant's looks the same). */
export function notFound(what: string, id: string, path = "/input/id"): GantryError {
  return new GantryError("not_found", `No ${what} with id ${id} in this tenant.`, {
    details: [{ path, message: `${path} does not name a ${what} of this tenant`, code: "record_not_found" }],
  });
}

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
