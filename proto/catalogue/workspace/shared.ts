/**
 * @module catalogue/workspace/shared
 * The value lists and schema builders that more than one of the workspace service's areas use; each
 * area's own builders sit in its file beside its entries.
 */
import { text } from "../schema.ts";
import { nullableStr, str, timestamp } from "../output.ts";

export function listQuery(what: string) {
  return text(`Case-insensitive search over ${what}.`, 200);
}

export function ownerTenant(what: string) {
  return str(`Tenant that owns the ${what} (\`acme\`, or nested \`acme/shop1\`).`);
}

export function recordVertical(what: string) {
  return nullableStr(`Vertical the ${what} belongs to (from the call's context.verticalId), or null.`);
}

export function created(what: string) {
  return timestamp(`When the ${what} was created (RFC 3339, UTC).`);
}

export function updated(what: string) {
  return timestamp(`When the ${what} last changed (RFC 3339, UTC).`);
}
