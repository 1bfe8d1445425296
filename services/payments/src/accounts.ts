/**
 * @module payments/accounts
 * Bank accounts are never stored whole: a recipient keeps the last four characters and a keyed
 * fingerprint (HMAC-SHA256 under PAYMENTS_FINGERPRINT_KEY) of country, bank code and number, so
 * verifying the same account again finds the same recipient while a leaked table reveals no number
 * (account numbers are short enough that an unkeyed hash could be reversed by trying them all).
 */
import { createHmac } from "node:crypto";

/** Public and labelled as such: only for deployments that leave PAYMENTS_FINGERPRINT_KEY unset. */
export const DEVELOPMENT_FINGERPRINT_KEY = "gantry-payments-PUBLIC-development-fingerprint-key";

export function accountFingerprint(
  key: string,
  a: { country: string; bankCode: string | null; accountNumber: string },
): string {
  return createHmac("sha256", key)
    .update(`${a.country}\u0000${a.bankCode ?? ""}\u0000${a.accountNumber.toUpperCase()}`)
    .digest("hex");
}
