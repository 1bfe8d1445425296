/**
 * @module content/money
 * Invoice and receipt totals in integer minor units (bigint while computing). The minor-unit digits
 * of a currency come from the ICU data Node ships (JPY 0, USD 2, KWD 3); a unit amount with more
 * decimals than its currency allows is refused, never rounded. A line's amount is quantity × unit
 * price rounded half-up to the minor unit (quantities may be fractional, e.g. hours); tax is the
 * subtotal × rate, rounded half-up once, on the subtotal.
 */
import { GantryError } from "@gantry/kit";

const KNOWN = new Set(Intl.supportedValuesOf("currency"));
/** Quantities and tax rates are exact to this many decimals (more is refused). */
const QUANTITY_DECIMALS = 6;
const RATE_DECIMALS = 4;

export function minorDigits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

function invalid(path: string, message: string, code: string): GantryError {
  return new GantryError("validation_failed", message, { details: [{ path, message, code }] });
}

export function checkCurrency(currency: string, path: string): void {
  if (!KNOWN.has(currency))
    throw invalid(path, `${path} ${currency} is not an ISO 4217 currency code this service knows.`, "unknown_currency");
}

/** An exact decimal as an integer scaled by 10^digits, or null when it has more decimals. */
function scaled(value: number, digits: number): bigint | null {
  const s = value * 10 ** digits;
  const r = Math.round(s);
  return Math.abs(s - r) > 1e-6 * Math.max(1, Math.abs(s)) ? null : BigInt(r);
}

/** `a / b` rounded half-up (a, b ≥ 0). */
function divHalfUp(a: bigint, b: bigint): bigint {
  return (a * 2n + b) / (b * 2n);
}

export interface LineItem {
  description: string;
  quantity: number;
  unitAmount: number;
}

export interface PricedLine extends LineItem {
  unitMinor: bigint;
  amountMinor: bigint;
}

export interface Totals {
  currency: string;
  lines: PricedLine[];
  subtotal: bigint;
  tax: bigint | null;
  total: bigint;
}

/** Prices every line and totals them; errors name `/input/spec/props/items/<i>/…`. */
export function computeTotals(currency: string, items: LineItem[], taxRate: number | undefined, at: string): Totals {
  checkCurrency(currency, `${at}/currency`);
  const digits = minorDigits(currency);
  const qScale = 10n ** BigInt(QUANTITY_DECIMALS);
  const lines = items.map((item, i): PricedLine => {
    const unitMinor = scaled(item.unitAmount, digits);
    if (unitMinor === null)
      throw invalid(
        `${at}/items/${i}/unitAmount`,
        `${at}/items/${i}/unitAmount has more decimals than ${currency} allows (${digits}).`,
        "currency_precision",
      );
    const q = scaled(item.quantity, QUANTITY_DECIMALS);
    if (q === null)
      throw invalid(
        `${at}/items/${i}/quantity`,
        `${at}/items/${i}/quantity may have at most ${QUANTITY_DECIMALS} decimals.`,
        "currency_precision",
      );
    return { ...item, unitMinor, amountMinor: divHalfUp(q * unitMinor, qScale) };
  });
  const subtotal = lines.reduce((sum, l) => sum + l.amountMinor, 0n);
  let tax: bigint | null = null;
  if (taxRate !== undefined) {
    const rate = scaled(taxRate, RATE_DECIMALS);
    if (rate === null)
      throw invalid(`${at}/taxRate`, `${at}/taxRate may have at most ${RATE_DECIMALS} decimals.`, "currency_precision");
    tax = divHalfUp(subtotal * rate, 100n * 10n ** BigInt(RATE_DECIMALS));
  }
  return { currency, lines, subtotal, tax, total: subtotal + (tax ?? 0n) };
}

/** Minor units → the wire shape `{amount, currency, minor}`. */
export function moneyOut(minor: bigint, currency: string): { amount: number; currency: string; minor: number } {
  return { amount: Number(minor) / 10 ** minorDigits(currency), currency, minor: Number(minor) };
}

/** Display text of an amount (`$1,234.50`): fixed locale, so renders are byte-stable. */
export function formatMoney(minor: bigint, currency: string): string {
  const digits = minorDigits(currency);
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(Number(minor) / 10 ** digits);
}
