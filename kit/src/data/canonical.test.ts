/**
 * canonicalJson: keys sorted by UTF-16 code units at every level, undefined members dropped, values
 * as JSON.stringify writes them; the text idempotency and receipts hash, so it must not change for
 * any value JSON.parse can give.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { canonicalJson, sha256Hex } from "./canonical.ts";

test("keys sorted at every level, arrays in order, undefined members dropped", () => {
  assert.equal(
    canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }], u: undefined, n: null, e: {}, l: [] }),
    '{"a":[2,{"c":4,"d":3}],"b":1,"e":{},"l":[],"n":null}',
  );
  assert.equal(canonicalJson({ only: undefined }), "{}");
  assert.equal(canonicalJson([undefined, 1]), "[null,1]");
});

test("scalars and strings as JSON.stringify writes them", () => {
  assert.equal(canonicalJson('a"b\\c\n\u2028é😀\u0007'), JSON.stringify('a"b\\c\n\u2028é😀\u0007'));
  assert.equal(canonicalJson(1e21), "1e+21");
  assert.equal(canonicalJson(-0), "0");
  assert.equal(canonicalJson(0.1 + 0.2), "0.30000000000000004");
  assert.equal(canonicalJson(true), "true");
  assert.equal(canonicalJson(null), "null");
  assert.equal(canonicalJson(undefined), "null");
  assert.equal(canonicalJson({ 'k"ey': "v" }), '{"k\\"ey":"v"}');
});

test("key order is by UTF-16 code units (RFC 8785), not by code point or locale", () => {
  // U+FB33 sorts after U+1D11E's surrogate pair (0xD834) by code units, before it by code point.
  const value = { "\u{1D11E}": 3, "\uFB33": 4, "\u00e9": 2, Z: 1, a: 0, "10": 5, "9": 6 };
  assert.equal(canonicalJson(value), '{"10":5,"9":6,"Z":1,"a":0,"\u00e9":2,"\u{1D11E}":3,"\uFB33":4}');
});

test("the same text as the array-joining form it replaced, for values JSON.parse gives", () => {
  const joined = (value: unknown): string => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
    if (Array.isArray(value)) return `[${value.map(joined).join(",")}]`;
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${joined(obj[k])}`).join(",")}}`;
  };
  let seed = 11;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const words = ["", "a", "B", "é", "𝄞", 'q"uote', "back\\slash", "tab\t", "10", "2"];
  const make = (depth: number): unknown => {
    const kind = next(depth > 3 ? 4 : 6);
    if (kind === 0) return words[next(words.length)];
    if (kind === 1) return next(2) ? next(1_000_000) - 500_000 : next(1_000_000) / 7;
    if (kind === 2) return next(2) === 0;
    if (kind === 3) return null;
    if (kind === 4) return Array.from({ length: next(5) }, () => make(depth + 1));
    return Object.fromEntries(Array.from({ length: next(6) }, () => [words[next(words.length)], make(depth + 1)]));
  };
  for (let i = 0; i < 2_000; i++) {
    const value = JSON.parse(JSON.stringify(make(0)));
    assert.equal(canonicalJson(value), joined(value));
  }
});

test("sha256Hex is the hex SHA-256 of the text's UTF-8", () => {
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    sha256Hex("é"),
    createHash("sha256")
      .update(Buffer.from([0xc3, 0xa9]))
      .digest("hex"),
  );
});
