/**
 * @module catalogue/payments/shared
 * The value lists and schema builders that more than one of the payments service's areas use; each
 * area's own builders sit in its file beside its entries.
 */
import { enumOf, fields, int, nullableStr, num, str } from "../output.ts";

/** Payment providers under their neutral names (spec §4.3 payment.initiate). */
export const PAYMENT_PROVIDERS = ["provider_a", "provider_b"] as const;

// ---- Results ----------------------------------------------------------------------------------

/** A record's vertical: the call's context.verticalId when it was made (issue 32 item 7). */
export function recordVertical(what: string) {
  return nullableStr(`Vertical the ${what} belongs to (from the call's context.verticalId), or null.`);
}

/** A Gantry-issued id with its prefix: `<prefix>_` followed by letters and digits. */
export function prefixedId(prefix: string, description: string) {
  return str(description, { pattern: `^${prefix}_[A-Za-z0-9]+$` });
}

/** Money in a result: integer minor units (exact) plus the same amount in major units, and the currency. */
export function moneyOut(description: string) {
  return fields(
    {
      amount: num(
        "Amount in major units of `currency` (e.g. 49.99), equal to `minor` / 10^exponent; for display — compute with `minor`.",
      ),
      currency: str("ISO 4217 currency code, upper case.", { pattern: "^[A-Z]{3}$" }),
      minor: int(
        "Amount in integer minor units of `currency` (cents for USD, yen for JPY, fils for KWD): the exact value.",
      ),
    },
    [],
    { description },
  );
}

export function modeOut() {
  return enumOf(
    "`sandbox`: the built-in deterministic sandbox provider handled it (no money moved; documented magic amounts and accounts fail on purpose); `live`: a real provider account did.",
    ["sandbox", "live"],
  );
}

export function credentialSourceOut() {
  return enumOf(
    "Whose provider account was used: `tenant` (the tenant's connection) or `platform` (the platform account: the tenant has no usable connection).",
    ["tenant", "platform"],
  );
}

export function providerOut(description: string) {
  return enumOf(description, PAYMENT_PROVIDERS);
}

export function failureProps() {
  return {
    failureCode: nullableStr(
      "Machine-readable reason of a failure as the provider reported it, normalised to snake_case (e.g. `card_declined`, `account_closed`); null unless failed.",
    ),
    failureMessage: nullableStr("Human-readable reason of a failure; null unless failed."),
  };
}
