/**
 * The legacy credential store's format (unit).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKey, hashKey } from "@gantry/kit";
import { LegacyStore, parseLegacyKeys } from "./legacy.ts";

test("compact form: tenant:secret:scopes separated by ; or newlines", () => {
  const keys = parseLegacyKeys(" acme:s3cr3t-0123456789abc:contact.*|task.create ;\nglobex:an0ther-s3cret-xyz0:*\n");
  assert.equal(keys.length, 2);
  assert.deepEqual(keys[0].scopes, ["contact.*", "task.create"]);
  assert.equal(keys[0].tenant, "acme");
  assert.equal(keys[0].name, "legacy 1");
  assert.match(keys[0].id, /^key_legacy_[0-9a-f]{20}$/);
  assert.equal(keys[0].secretHash, hashKey("s3cr3t-0123456789abc"));
  assert.equal(keys[1].admin, false);
  assert.ok(!JSON.stringify(keys).includes("s3cr3t-0123456789abc"), "the raw secret is not kept");
});

test("JSON form with every field; ids depend on tenant and name only", () => {
  const value = JSON.stringify([
    {
      tenant: "acme",
      secret: "a:b;c|d-0123456789",
      scopes: ["memory.*"],
      name: "old app",
      collections: ["support"],
      products: ["shop"],
      subTenants: true,
      admin: false,
    },
  ]);
  const [k] = parseLegacyKeys(value);
  assert.equal(k.name, "old app");
  assert.deepEqual(k.collections, ["support"]);
  assert.equal(k.subTenants, true);
  const [again] = parseLegacyKeys(
    JSON.stringify([{ tenant: "acme", secret: "different-secret-999", scopes: ["*"], name: "old app" }]),
  );
  assert.equal(again.id, k.id);
});

test("empty or unset means no legacy keys", () => {
  assert.deepEqual(parseLegacyKeys(undefined), []);
  assert.deepEqual(parseLegacyKeys("  "), []);
});

test("bad entries stop the start, naming the entry but never the secret", () => {
  const bad: Array<[string, RegExp]> = [
    ["acme:short:*", /entry 1: secret/],
    ["acme:s3cr3t-0123456789abc", /entry 1 must be tenant:secret/],
    ["acme:s3cr3t-0123456789abc:Not A Scope", /entry 1: scopes: item 1/],
    ["acme:s3cr3t-0123456789abc:", /at least one scope/],
    ["bad tenant!:s3cr3t-0123456789abc:*", /entry 1: tenant/],
    ["acme:s3cr3t-0123456789abc:*;globex:s3cr3t-0123456789abc:*", /entry 2: the same secret appears twice/],
    ["acme:gk_notAValidKeyButLongEnough0000000:*", /well-formed Gantry key/],
    ['[{"tenant":"acme","secret":"s3cr3t-0123456789abc","scopes":["*"],"extra":1}]', /unknown field "extra"/],
    [
      '[{"tenant":"acme","secret":"s3cr3t-0123456789abc","scopes":["*"]},{"tenant":"acme","secret":"s3cr3t-0123456789abd","scopes":["*"],"name":"legacy 1"}]',
      /entry 2: same tenant and name as entry 1/,
    ],
    ["[not json", /not valid JSON/],
  ];
  for (const [value, message] of bad) {
    assert.throws(
      () => parseLegacyKeys(value),
      (err: Error) => {
        assert.match(err.message, message, value);
        assert.ok(!err.message.includes("s3cr3t-0123456789abc"), `secret in: ${err.message}`);
        return true;
      },
    );
  }
});

test("a well-formed gk_ key may be a legacy secret; lookups are by hash", () => {
  const raw = generateKey();
  const store = LegacyStore.fromEnv(`acme:${raw}:*`);
  assert.equal(store.byHash(hashKey(raw))?.tenant, "acme");
  assert.equal(store.byHash(hashKey("something-else-entirely")), undefined);
  assert.equal(store.byId(store.keys[0].id)?.tenant, "acme");
});
