/** kit/money: exact decimal shifting into integer minor units; extra decimals refused, never rounded. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { GantryError } from "./errors.ts";
import { decimalParts, formatMoney, majorText, minorDigits, moneyOut, scaledExact, toMinor } from "./money.ts";

const detail = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    const e = err as GantryError;
    return { code: e.code, path: e.details?.[0].path, detail: e.details?.[0].code };
  }
  assert.fail("expected a refusal");
};

test("currency exponents come from ICU: 0, 2 and 3", () => {
  assert.equal(minorDigits("JPY"), 0);
  assert.equal(minorDigits("USD"), 2);
  assert.equal(minorDigits("KWD"), 3);
});

test("toMinor shifts the decimal digits, with no float drift, for exponents 0, 2 and 3", () => {
  assert.equal(toMinor(49.99, "USD"), 4999n);
  assert.equal(toMinor(0.29, "USD"), 29n); // 0.29 * 100 is 28.999999999999996 in floating point
  assert.equal(toMinor(1.15, "USD"), 115n); // 1.15 * 100 is 114.99999999999999
  assert.equal(toMinor(12000.5, "EUR"), 1200050n);
  assert.equal(toMinor(500, "JPY"), 500n);
  assert.equal(toMinor(1.005, "KWD"), 1005n);
  assert.equal(toMinor(1e-3, "KWD"), 1n);
  assert.equal(toMinor("12.50", "USD"), 1250n);
});

test("toMinor keeps large amounts exact", () => {
  assert.equal(toMinor(1_000_000_000, "JPY"), 1_000_000_000n);
  assert.equal(toMinor(999_999_999.99, "USD"), 99_999_999_999n);
  assert.equal(toMinor(1e21, "USD"), 10n ** 23n);
  assert.equal(toMinor("123456789012345678901.23", "USD"), 12345678901234567890123n);
});

test("toMinor refuses more decimals than the currency allows, never rounding", () => {
  for (const [amount, currency] of [
    [49.999, "USD"],
    [0.5, "JPY"],
    [1.0001, "KWD"],
    [1e-7, "USD"],
    [0.1 + 0.2, "EUR"], // 0.30000000000000004: what a client sends is what is checked
  ] as const) {
    assert.deepEqual(
      detail(() => toMinor(amount, currency, "/input/value")),
      {
        code: "validation_failed",
        path: "/input/value/amount",
        detail: "currency_precision",
      },
    );
  }
});

test("toMinor refuses an unknown currency and an amount below one minor unit", () => {
  assert.deepEqual(
    detail(() => toMinor(1, "ZZZ", "/input/items/2")),
    {
      code: "validation_failed",
      path: "/input/items/2/currency",
      detail: "unknown_currency",
    },
  );
  assert.equal(detail(() => toMinor(0, "USD")).detail, "exclusiveMinimum");
  assert.equal(detail(() => toMinor(-5, "USD")).detail, "exclusiveMinimum");
});

test("scaledExact: any exact decimal, negative too; null when it has more decimals", () => {
  assert.equal(scaledExact(1.5, 6), 1_500_000n);
  assert.equal(scaledExact(7.5, 4), 75_000n);
  assert.equal(scaledExact(-2.25, 2), -225n);
  assert.equal(scaledExact(0, 2), 0n);
  assert.equal(scaledExact(-0, 2), 0n);
  assert.equal(scaledExact(1.2345678, 6), null);
  assert.equal(scaledExact("-0.10", 1), -1n);
  assert.deepEqual(decimalParts(1.5e-7), { negative: false, whole: "0", fraction: "00000015" });
  assert.deepEqual(decimalParts(2.5e21), { negative: false, whole: "2500000000000000000000", fraction: "" });
  for (const bad of ["", "1.", ".5", "1e", "abc", "1,5", "+1"]) assert.throws(() => decimalParts(bad), RangeError);
  assert.throws(() => decimalParts(Number.NaN), RangeError);
  assert.throws(() => decimalParts(Number.POSITIVE_INFINITY), RangeError);
});

test("moneyOut and majorText build major units from the decimal string", () => {
  assert.deepEqual(moneyOut(29n, "USD"), { amount: 0.29, currency: "USD", minor: 29 });
  assert.deepEqual(moneyOut(1005n, "KWD"), { amount: 1.005, currency: "KWD", minor: 1005 });
  assert.deepEqual(moneyOut(700n, "JPY"), { amount: 700, currency: "JPY", minor: 700 });
  assert.deepEqual(moneyOut(-150n, "USD"), { amount: -1.5, currency: "USD", minor: -150 });
  assert.equal(majorText(5n, "KWD"), "0.005");
  assert.equal(majorText(-5n, "USD"), "-0.05");
  assert.equal(majorText(12345678901234567890123n, "USD"), "123456789012345678901.23");
});

test("formatMoney prints exactly, in a fixed locale", () => {
  assert.equal(formatMoney(123450n, "USD"), "$1,234.50");
  assert.equal(formatMoney(700n, "JPY"), "¥700");
  assert.equal(formatMoney(1005n, "KWD"), "KWD\u00a01.005");
  assert.equal(formatMoney(900719925474099301n, "USD"), "$9,007,199,254,740,993.01");
});
