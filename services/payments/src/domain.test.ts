/**
 * The pure rules: major → minor units without floating point (checked against the currency's
 * exponent), minor → the result shape, the forward-only state machines, batch status, name matching
 * and the webhook signature of provider_b.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { moneyOut, toMinor } from "@gantry/kit/money.ts";
import { applicationFee } from "./providers/provider-a.ts";
import { compareNames } from "./records.ts";
import { batchStatus, canMovePayment, canMovePayout } from "./states.ts";
import { paystackSignatureValid } from "./webhooks.ts";

test("toMinor: exact for every exponent, no float drift, refuses extra decimals", () => {
  assert.equal(toMinor(49.99, "USD"), 4999n);
  assert.equal(toMinor(0.29, "USD"), 29n); // 0.29 * 100 = 28.999999999999996 in floating point
  assert.equal(toMinor(1.005, "KWD"), 1005n);
  assert.equal(toMinor(1000000000, "JPY"), 1000000000n);
  assert.equal(toMinor(0.01, "EUR"), 1n);
  assert.equal(toMinor(1e-3, "KWD"), 1n);
  for (const [a, c] of [
    [49.999, "USD"],
    [0.5, "JPY"],
    [1e-7, "USD"],
  ] as const) {
    assert.throws(
      () => toMinor(a, c),
      (err: any) => err.details[0].code === "currency_precision",
    );
  }
  assert.throws(
    () => toMinor(1, "ZZZ", "/input/items/2"),
    (err: any) => err.details[0].path === "/input/items/2/currency",
  );
});

test("moneyOut: minor units back to major units by string", () => {
  assert.deepEqual(moneyOut(29n, "USD"), { amount: 0.29, currency: "USD", minor: 29 });
  assert.deepEqual(moneyOut(1005n, "KWD"), { amount: 1.005, currency: "KWD", minor: 1005 });
  assert.deepEqual(moneyOut(700n, "JPY"), { amount: 700, currency: "JPY", minor: 700 });
  assert.deepEqual(moneyOut(-150n, "USD"), { amount: -1.5, currency: "USD", minor: -150 });
});

test("state machines only move forward; final states only along their own edge", () => {
  assert.ok(canMovePayment("pending", "processing"));
  assert.ok(canMovePayment("pending", "succeeded"));
  assert.ok(canMovePayment("processing", "failed"));
  assert.ok(canMovePayment("succeeded", "refunded"));
  assert.ok(!canMovePayment("processing", "pending"));
  assert.ok(!canMovePayment("succeeded", "failed"));
  assert.ok(!canMovePayment("pending", "refunded"));
  assert.ok(!canMovePayment("expired", "succeeded"));
  assert.ok(!canMovePayment("refunded", "succeeded"));
  assert.ok(canMovePayout("pending", "paid"));
  assert.ok(canMovePayout("paid", "reversed"));
  assert.ok(!canMovePayout("paid", "failed"));
  assert.ok(!canMovePayout("processing", "reversed"));
  assert.ok(!canMovePayout("failed", "paid"));
  assert.equal(batchStatus(["pending", "pending"]), "pending");
  assert.equal(batchStatus(["paid", "processing"]), "processing");
  assert.equal(batchStatus(["paid", "paid"]), "completed");
  assert.equal(batchStatus(["paid", "failed"]), "partially_failed");
  assert.equal(batchStatus(["paid", "reversed"]), "partially_failed");
  assert.equal(batchStatus(["failed", "cancelled"]), "failed");
});

test("compareNames ignores case, spacing, accents and word order", () => {
  assert.equal(compareNames("ada  OBI", "Obi Ada"), "match");
  assert.equal(compareNames("Adá Obi", "ADA OBI"), "match");
  assert.equal(compareNames("Ada Okafor", "ADA OBI"), "partial");
  assert.equal(compareNames("Tunde", "ADA OBI"), "mismatch");
});

test("x-paystack-signature: HMAC-SHA512 of the raw body, anything else refused", () => {
  const body = Buffer.from('{"event":"charge.success","data":{"id":1}}');
  const good = createHmac("sha512", "sk_key").update(body).digest("hex");
  assert.ok(paystackSignatureValid(body, good, "sk_key"));
  assert.ok(!paystackSignatureValid(body, good, "sk_other"));
  assert.ok(!paystackSignatureValid(Buffer.from(`${body} `), good, "sk_key"));
  assert.ok(!paystackSignatureValid(body, good.slice(2), "sk_key"));
  assert.ok(!paystackSignatureValid(body, undefined, "sk_key"));
});

test("applicationFee: basis points of the amount, rounded down, integers only", () => {
  assert.equal(applicationFee(5000n, 250), 125n);
  assert.equal(applicationFee(999n, 250), 24n);
  assert.equal(applicationFee(100_000_000_000n, 1), 10_000_000n);
  assert.equal(applicationFee(1234n, 0), 0n);
});
