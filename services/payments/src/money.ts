/**
 * @module payments/money
 * Money in integer minor units, converted without floating-point arithmetic: an input amount is
 * read from its shortest decimal representation (what JSON carried), its digits are checked
 * against the currency's exponent (ICU data: JPY 0, USD 2, KWD 3) and shifted as a string. An
 * amount with more decimals than the currency allows is refused, never rounded (`49.999 USD` → 400).
 */
import { GantryError } from "@gantry/kit";

const KNOWN = new Set(Intl.supportedValuesOf("currency"));

/** Minor-unit digits of a currency (its ISO 4217 exponent). */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

function refuse(path: string, message: string, detail: string, code: string): GantryError {
  return new GantryError("validation_failed", message, { details: [{ path, message: detail, code }] });
}

/** Checks that the currency is one ICU knows; `path` is the JSON pointer of the currency field. */
export function checkCurrency(currency: string, path: string): void {
  if (!KNOWN.has(currency)) {
    throw refuse(
      path,
      `${path} ${currency} is not an ISO 4217 currency this service knows; use a code such as USD, EUR, NGN.`,
      `${path} must be a known ISO 4217 code`,
      "unknown_currency",
    );
  }
}

/** The exact decimal digits of a JS number: sign-less [integer part, fraction part]. */
function decimalParts(n: number): [string, string] {
  const text = String(n);
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!m) throw new Error(`not a positive decimal: ${text}`);
  let digits = m[1] + (m[2] ?? "");
  let point = m[1].length + Number(m[3] ?? 0);
  if (point <= 0) {
    digits = "0".repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += "0".repeat(point - digits.length);
  return [digits.slice(0, point), digits.slice(point).replace(/(?<!0)0+$/, "")];
}

/**
 * Major units → integer minor units. `base` is the pointer of the object holding `amount` and
 * `currency` (`/input` or `/input/items/3`).
 */
export function toMinor(amount: number, currency: string, base = "/input"): bigint {
  checkCurrency(currency, `${base}/currency`);
  const digits = minorDigits(currency);
  const [whole, fraction] = decimalParts(amount);
  if (fraction.length > digits) {
    throw refuse(
      `${base}/amount`,
      `${base}/amount ${amount} has more decimal places than ${currency} allows (${digits}); send the amount in major units with at most ${digits}.`,
      `${base}/amount must have at most ${digits} decimal place(s) for ${currency}`,
      "currency_precision",
    );
  }
  const minor = BigInt(whole + fraction.padEnd(digits, "0"));
  if (minor <= 0n) {
    throw refuse(
      `${base}/amount`,
      `${base}/amount is smaller than one minor unit of ${currency}.`,
      `${base}/amount must be at least one minor unit`,
      "exclusiveMinimum",
    );
  }
  return minor;
}

export interface MoneyOut {
  amount: number;
  currency: string;
  minor: number;
}

/** Minor units → the result shape `{amount, currency, minor}` (amount built from the decimal string). */
export function moneyOut(minor: bigint, currency: string): MoneyOut {
  const digits = minorDigits(currency);
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(digits + 1, "0");
  const major = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return { amount: Number((negative ? "-" : "") + major), currency, minor: Number(minor) };
}
