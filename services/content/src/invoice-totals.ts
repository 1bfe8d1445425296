/**
 * @module content/invoice-totals
 * Invoice and receipt totals in integer minor units (bigint while computing), on the kit's money
 * module (kit/src/money.ts: currency exponents, exact decimal shifting). A unit amount with more
 * decimals than its currency allows is refused, never rounded. A line's amount is quantity × unit
 * price rounded half-up to the minor unit (quantities may be fractional, e.g. hours); tax is the
 * subtotal × rate, rounded half-up once, on the subtotal.
 */
import { GantryError } from "@gantry/kit";
import { checkCurrency, minorDigits, scaledExact } from "@gantry/kit/money.ts";

/** Quantities and tax rates are exact to this many decimals (more is refused). */
const QUANTITY_DECIMALS = 6;
const RATE_DECIMALS = 4;

function invalid(path: string, message: string, code: string): GantryError {
  return new GantryError("validation_failed", message, { details: [{ path, message, code }] });
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
    const unitMinor = scaledExact(item.unitAmount, digits);
    if (unitMinor === null)
      throw invalid(
        `${at}/items/${i}/unitAmount`,
        `${at}/items/${i}/unitAmount has more decimals than ${currency} allows (${digits}).`,
        "currency_precision",
      );
    const q = scaledExact(item.quantity, QUANTITY_DECIMALS);
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
    const rate = scaledExact(taxRate, RATE_DECIMALS);
    if (rate === null)
      throw invalid(`${at}/taxRate`, `${at}/taxRate may have at most ${RATE_DECIMALS} decimals.`, "currency_precision");
    tax = divHalfUp(subtotal * rate, 100n * 10n ** BigInt(RATE_DECIMALS));
  }
  return { currency, lines, subtotal, tax, total: subtotal + (tax ?? 0n) };
}
