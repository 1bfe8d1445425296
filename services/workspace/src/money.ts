/**
 * @module workspace/money
 * Money in integer minor units. The number of minor-unit digits of a currency comes from the ICU
 * data Node ships (`Intl.NumberFormat`), so JPY has 0, USD 2, KWD 3; only currencies ICU knows are
 * accepted, and an amount with more decimals than its currency allows is refused (never rounded).
 */
import { GantryError } from "@gantry/kit";

const KNOWN = new Set(Intl.supportedValuesOf("currency"));

export function minorDigits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** `{amount (major units), currency}` → minor units; throws validation_failed naming `path`. */
export function toMinor(amount: number, currency: string, path: string): bigint {
  if (!KNOWN.has(currency)) {
    throw new GantryError(
      "validation_failed",
      `${path}/currency ${currency} is not an ISO 4217 currency this service knows.`,
      {
        details: [
          {
            path: `${path}/currency`,
            message: `${path}/currency must be a known ISO 4217 code`,
            code: "unknown_currency",
          },
        ],
      },
    );
  }
  const digits = minorDigits(currency);
  const scaled = amount * 10 ** digits;
  const rounded = Math.round(scaled);
  if (Math.abs(scaled - rounded) > 1e-6 * Math.max(1, Math.abs(scaled))) {
    throw new GantryError(
      "validation_failed",
      `${path}/amount has more decimals than ${currency} allows (${digits}).`,
      {
        details: [
          {
            path: `${path}/amount`,
            message: `${path}/amount must have at most ${digits} decimal place(s) for ${currency}`,
            code: "currency_precision",
          },
        ],
      },
    );
  }
  return BigInt(rounded);
}

/** Minor units → the wire shape `{amount, currency, minor}`. */
export function fromMinor(minor: bigint, currency: string): { amount: number; currency: string; minor: number } {
  const digits = minorDigits(currency);
  return { amount: Number(minor) / 10 ** digits, currency, minor: Number(minor) };
}
