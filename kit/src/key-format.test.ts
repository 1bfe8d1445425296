import { test } from "node:test";
import assert from "node:assert/strict";
import {
  generateKey,
  isLegacySecretShape,
  isWellFormedKey,
  hashKey,
  keyPrefix,
  newKeyId,
  KEY_LENGTH,
  LEGACY_SECRET_MAX_LENGTH,
} from "./key-format.ts";

test("generated keys are well formed, unique and prefixed", () => {
  const keys = new Set(Array.from({ length: 500 }, generateKey));
  assert.equal(keys.size, 500);
  for (const k of keys) {
    assert.match(k, /^gk_[0-9A-Za-z]{36}$/);
    assert.equal(k.length, KEY_LENGTH);
    assert.ok(isWellFormedKey(k));
  }
});

test("a single mistyped character fails the checksum", () => {
  const k = generateKey();
  let refused = 0;
  for (let i = 3; i < k.length; i++) {
    const c = k[i] === "a" ? "b" : "a";
    if (!isWellFormedKey(k.slice(0, i) + c + k.slice(i + 1))) refused++;
  }
  assert.equal(refused, k.length - 3);
});

test("wrong prefix, length or alphabet is refused", () => {
  const k = generateKey();
  assert.equal(isWellFormedKey(`sk_${k.slice(3)}`), false);
  assert.equal(isWellFormedKey(`${k}x`), false);
  assert.equal(isWellFormedKey(`${k.slice(0, -1)}-`), false);
  assert.equal(isWellFormedKey(""), false);
});

test("hash is SHA-256 hex and prefix reveals 8 body characters only", () => {
  const k = generateKey();
  assert.match(hashKey(k), /^[0-9a-f]{64}$/);
  assert.equal(keyPrefix(k), k.slice(0, 11));
  assert.match(newKeyId(), /^key_[0-9A-Za-z]{24}$/);
});

test("a legacy secret is 16 to 512 printable ASCII characters without whitespace", () => {
  assert.equal(LEGACY_SECRET_MAX_LENGTH, 512);
  assert.ok(isLegacySecretShape("a".repeat(16)));
  assert.ok(isLegacySecretShape("~!#$%^&*()_+{}|:".repeat(32)));
  assert.ok(!isLegacySecretShape("a".repeat(15)), "too short");
  assert.ok(!isLegacySecretShape("a".repeat(513)), "too long");
  assert.ok(!isLegacySecretShape(`${"a".repeat(16)} b`), "a space");
  assert.ok(!isLegacySecretShape(`${"a".repeat(16)}\t`), "a tab");
  assert.ok(!isLegacySecretShape(`${"a".repeat(16)}é`), "not ASCII");
});
