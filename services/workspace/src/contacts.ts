/**
 * @module workspace/contacts
 * Field normalisation shared by contact.create and contact.update.
 */
import { invalidField } from "./errors.ts";
import { normalizePhone } from "./phone.ts";

/** E.164 or a validation_failed naming the field. */
export function phoneOrThrow(raw: string, path = "/input/phone"): string {
  const r = normalizePhone(raw);
  if (!r.ok) throw invalidField(path, `is not a valid phone number: ${r.reason}`, "invalid_phone");
  return r.e164;
}

/** Emails are trimmed and their domain lower-cased (the local part is left as typed). */
export function normalizeEmail(raw: string): string {
  const s = raw.trim();
  const at = s.lastIndexOf("@");
  return at < 0 ? s : s.slice(0, at + 1) + s.slice(at + 1).toLowerCase();
}
