/**
 * foreignValidator: third-party schemas (OpenAPI extensions, unknown formats) compile; problems are
 * field-named details under the caller's root, with codes from the closed DETAIL_CODES.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDetailCode } from "./errors.ts";
import { foreignValidator } from "./foreign-schema.ts";

const schema = {
  type: "object",
  additionalProperties: false,
  required: ["charge"],
  properties: {
    charge: { type: "string", maxLength: 5000, "x-stripeBypassValidation": true },
    amount: { type: "integer", multipleOf: 5 },
    created: { type: "integer", format: "unix-time" },
  },
};

test("a provider's schema with extensions and unknown formats compiles and validates", () => {
  const check = foreignValidator(schema, "/input/arguments");
  assert.deepEqual(check({ charge: "ch_1", amount: 10, created: 1700000000 }), []);
  const details = check({ amount: "x", bogus: 1 });
  assert.deepEqual(details.map((d) => d.path).sort(), [
    "/input/arguments/amount",
    "/input/arguments/bogus",
    "/input/arguments/charge",
  ]);
  for (const d of details) {
    assert.ok(isDetailCode(d.code), String(d.code));
    assert.ok(d.message.startsWith(d.path));
  }
});

test("a keyword outside DETAIL_CODES is reported as invalid_value", () => {
  const [detail] = foreignValidator(schema, "/input/arguments")({ charge: "c", amount: 7 });
  assert.equal(detail?.path, "/input/arguments/amount");
  assert.equal(detail?.code, "invalid_value");
});

test("a provider's catastrophic pattern runs in linear time (RE2), and still refuses what it should", () => {
  const check = foreignValidator(
    { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } },
    "/input/arguments",
  );
  // Under JavaScript's backtracking engine this one value takes longer than the universe has left.
  const started = performance.now();
  const [detail] = check({ name: `${"a".repeat(100_000)}!` });
  const ms = performance.now() - started;
  assert.equal(detail?.code, "pattern");
  assert.ok(ms < 2_000, `took ${ms.toFixed(0)} ms`);
  assert.deepEqual(check({ name: "aaa" }), []);
});

test("a foreign string's length is checked before its pattern and format", () => {
  const check = foreignValidator(
    { type: "object", properties: { code: { type: "string", maxLength: 8, pattern: "^[a-z]+$", format: "email" } } },
    "/input/arguments",
  );
  const details = check({ code: "X".repeat(1_000_000) });
  assert.deepEqual(
    details.map((d) => d.code),
    ["maxLength"],
  );
  assert.equal(details[0].message, "/input/arguments/code must be at most 8 characters long");
});

test("a pattern RE2 cannot run (look-ahead) is left to the provider rather than failing the tool", () => {
  const check = foreignValidator(
    { type: "object", properties: { id: { type: "string", pattern: "^(?=a)[a-z]+$" } } },
    "/input/arguments",
  );
  assert.deepEqual(check({ id: "zzz" }), []);
});
