/**
 * @module kit/money
 * Money in integer minor units (the spec), converted without floating-point arithmetic. An amount
 * is read from its shortest decimal representation (what JSON carried: `String(49.99)` is "49.99"),
 * its digits are checked against the currency's exponent (ICU data Node ships: JPY 0, USD 2, KWD 3)
 * and shifted as a string. An amount with more decimals than the currency allows is refused, never
 * rounded (`49.999 USD` → 400 `currency_precision`). Results carry `{amount, currency, minor}`:
 * `minor` is the exact value, `amount` the same in major units, built from the decimal string.
 */
import { GantryError } from "./errors.ts";

const KNOWN: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

/** Whether ICU knows the ISO 4217 code. */
export function isKnownCurrency(currency: string): boolean {
  return KNOWN.has(currency);
}

/** Exponents already asked of ICU: building an Intl.NumberFormat costs more than a payment's SQL. */
const DIGITS = new Map<string, number>();

/** Minor-unit digits of a currency (its ISO 4217 exponent: JPY 0, USD 2, KWD 3). */
export function minorDigits(currency: string): number {
  let digits = DIGITS.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    // Only known codes are kept, so arbitrary input cannot grow the map.
    if (KNOWN.has(currency)) DIGITS.set(currency, digits);
  }
  return digits;
}

function refuse(path: string, message: string, detail: string, code: string): GantryError {
  return new GantryError("validation_failed", message, { details: [{ path, message: detail, code }] });
}

/** Refuses a currency ICU does not know (`unknown_currency`); `path` is the JSON pointer of the currency field. */
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

function isDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * The exact decimal digits of a finite number (its shortest round-trip text) or of a plain decimal
 * string (`-12.50`): the sign, the integer part and the fraction without trailing zeros.
 */
export function decimalParts(value: number | string): { negative: boolean; whole: string; fraction: string } {
  let text: string;
  let negative: boolean;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
    negative = value < 0;
    text = String(Math.abs(value));
  } else {
    negative = value.startsWith("-");
    text = negative ? value.slice(1) : value;
  }
  // Only a number's own text has an exponent (`1e-7`, `1.5e+21`); a string must be plain.
  const e = typeof value === "number" ? text.indexOf("e") : -1;
  const mantissa = e < 0 ? text : text.slice(0, e);
  const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const fracPart = dot < 0 ? "" : mantissa.slice(dot + 1);
  if (!isDigits(intPart) || (dot >= 0 && !isDigits(fracPart)) || !Number.isInteger(exponent)) {
    throw new RangeError(`not a decimal: ${String(value)}`);
  }
  let digits = intPart + fracPart;
  let point = intPart.length + exponent;
  if (point <= 0) {
    digits = "0".repeat(1 - point) + digits;
    point = 1;
  }
  if (point > digits.length) digits += "0".repeat(point - digits.length);
  let end = digits.length;
  while (end > point && digits.charCodeAt(end - 1) === 48) end--;
  let start = 0;
  while (start < point - 1 && digits.charCodeAt(start) === 48) start++;
  const whole = digits.slice(start, point);
  const fraction = digits.slice(point, end);
  return { negative: negative && (whole !== "0" || fraction !== ""), whole, fraction };
}

/**
 * `value × 10^digits` as an exact integer, or null when `value` has more than `digits` decimals.
 * For any exact decimal quantity (amounts, quantities, rates); never rounds.
 */
export function scaledExact(value: number | string, digits: number): bigint | null {
  const { negative, whole, fraction } = decimalParts(value);
  if (fraction.length > digits) return null;
  const scaled = BigInt(whole + fraction.padEnd(digits, "0"));
  return negative ? -scaled : scaled;
}

/**
 * `{amount (major units), currency}` → integer minor units; refuses an unknown currency
 * (`unknown_currency`), more decimals than the currency allows (`currency_precision`) and an amount
 * below one minor unit (`exclusiveMinimum`). `base` is the pointer of the object holding `amount`
 * and `currency` (`/input`, `/input/items/3`, `/input/value`).
 */
export function toMinor(amount: number | string, currency: string, base = "/input"): bigint {
  checkCurrency(currency, `${base}/currency`);
  const digits = minorDigits(currency);
  const minor = scaledExact(amount, digits);
  if (minor === null) {
    throw refuse(
      `${base}/amount`,
      `${base}/amount ${amount} has more decimal places than ${currency} allows (${digits}); send the amount in major units with at most ${digits}.`,
      `${base}/amount must have at most ${digits} decimal place(s) for ${currency}`,
      "currency_precision",
    );
  }
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

/** Minor units as a decimal string in major units (`-150n USD` → "-1.50"). */
export function majorText(minor: bigint, currency: string): string {
  const digits = minorDigits(currency);
  const negative = minor < 0n;
  const abs = (negative ? -minor : minor).toString().padStart(digits + 1, "0");
  const major = digits ? `${abs.slice(0, -digits)}.${abs.slice(-digits)}` : abs;
  return (negative ? "-" : "") + major;
}

/** Money in a result. */
export interface MoneyOut {
  amount: number;
  currency: string;
  minor: number;
}

/** Minor units → the result shape `{amount, currency, minor}` (amount read from the decimal string). */
export function moneyOut(minor: bigint, currency: string): MoneyOut {
  return { amount: Number(majorText(minor, currency)), currency, minor: Number(minor) };
}

/** Display text of an amount (`$1,234.50`): fixed locale, so renders are byte-stable; exact (formats the decimal string). */
export function formatMoney(minor: bigint, currency: string): string {
  const digits = minorDigits(currency);
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    // A decimal string is formatted exactly (Intl.NumberFormat v3); the cast is for lib typings.
  }).format(majorText(minor, currency) as unknown as number);
}
