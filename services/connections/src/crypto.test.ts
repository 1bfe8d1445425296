/**
 * Envelope encryption (src/crypto.ts) and the master-key configuration (src/config.ts): values open
 * only with the tenant, record and field they were sealed for; tampering is detected; a data key
 * re-wrapped under a new master key still opens the old values; production refuses to start without
 * a master key, and development gets the labelled public key.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { ConfigError } from "@gantry/kit";
import {
  DecryptionError,
  decodeMasterKey,
  developmentMasterKey,
  type MasterKeys,
  openRecord,
  openValue,
  rewrapKey,
  sealRecord,
} from "./crypto.ts";
import { type ConnectionsConfig, loadMasterKeys } from "./config.ts";

function keysOf(...versions: [number, Buffer][]): MasterKeys {
  const [version, key] = versions[versions.length - 1];
  return { current: { version, key }, byVersion: new Map(versions), development: false };
}

const acme = { tenant: "acme", id: "con_01AAAAAAAAAAAAAAAAAAAAAAAA" };

test("a sealed record opens with its tenant and id, and its values are not in the sealed bytes", () => {
  const keys = keysOf([1, randomBytes(32)]);
  const sealed = sealRecord(keys, acme, {
    access: "ya29.access-token-value",
    refresh: "1//refresh-token-value",
    none: null,
  });
  assert.equal(sealed.keyVersion, 1);
  assert.equal(sealed.values.none, null);
  for (const b of [sealed.wrappedKey, sealed.values.access, sealed.values.refresh] as Buffer[]) {
    assert.ok(!b.toString("latin1").includes("token-value"));
    assert.equal(b.length >= 28, true);
  }
  const opened = openRecord(keys, acme, sealed.wrappedKey, 1, {
    access: sealed.values.access,
    refresh: sealed.values.refresh,
    none: null,
  });
  assert.deepEqual(opened, { access: "ya29.access-token-value", refresh: "1//refresh-token-value", none: null });
  // Two seals of the same value differ (fresh data key and IVs).
  const again = sealRecord(keys, acme, { access: "ya29.access-token-value" });
  assert.notDeepEqual(again.values.access, sealed.values.access);
  assert.notDeepEqual(again.wrappedKey, sealed.wrappedKey);
});

test("another tenant's or record's associated data, another field, or a flipped bit does not open", () => {
  const keys = keysOf([1, randomBytes(32)]);
  const sealed = sealRecord(keys, acme, { access: "secret-access" });
  const access = sealed.values.access as Buffer;
  const open = (binding: typeof acme, field = "access", value: Buffer = access, wrapped = sealed.wrappedKey) =>
    openValue(keys, binding, wrapped, 1, field, value);
  assert.equal(open(acme), "secret-access");
  assert.throws(() => open({ ...acme, tenant: "beta" }), DecryptionError);
  assert.throws(() => open({ ...acme, tenant: "acme/shop1" }), DecryptionError);
  assert.throws(() => open({ ...acme, id: "con_01BBBBBBBBBBBBBBBBBBBBBBBB" }), DecryptionError);
  assert.throws(() => open(acme, "refresh"), DecryptionError);
  const flipped = Buffer.from(access);
  flipped[14] ^= 1;
  assert.throws(() => open(acme, "access", flipped), DecryptionError);
  const wrapped = Buffer.from(sealed.wrappedKey);
  wrapped[wrapped.length - 1] ^= 1;
  assert.throws(() => open(acme, "access", access, wrapped), DecryptionError);
  // Another master key does not unwrap the data key.
  assert.throws(
    () => openValue(keysOf([1, randomBytes(32)]), acme, sealed.wrappedKey, 1, "access", access),
    DecryptionError,
  );
  // A key version that is not configured is named.
  assert.throws(() => openValue(keys, acme, sealed.wrappedKey, 7, "access", access), /version 7 is not configured/);
});

test("rewrap moves a data key to the current master key; the values open unchanged, the old key is no longer needed", () => {
  const v1 = randomBytes(32);
  const v2 = randomBytes(32);
  const old = keysOf([1, v1]);
  const sealed = sealRecord(old, acme, { access: "still-the-same" });
  const both = keysOf([1, v1], [2, v2]);
  const moved = rewrapKey(both, acme, sealed.wrappedKey, 1);
  assert.equal(moved.keyVersion, 2);
  const onlyNew = keysOf([2, v2]);
  assert.equal(
    openValue(onlyNew, acme, moved.wrappedKey, 2, "access", sealed.values.access as Buffer),
    "still-the-same",
  );
  assert.throws(() => openValue(onlyNew, acme, sealed.wrappedKey, 1, "access", sealed.values.access as Buffer));
  // The version is bound too: a v2-wrapped key presented as v1 does not open.
  assert.throws(() => openValue(both, acme, moved.wrappedKey, 1, "access", sealed.values.access as Buffer));
});

const config = (env: Partial<ConnectionsConfig>): ConnectionsConfig =>
  ({ CONNECTIONS_MASTER_KEY_VERSION: 1, CONNECTIONS_PREVIOUS_MASTER_KEYS: "{}", ...env }) as ConnectionsConfig;

test("without CONNECTIONS_MASTER_KEY the service refuses to start unless NODE_ENV is development or test", () => {
  for (const NODE_ENV of [undefined, "production", "staging"]) {
    assert.throws(
      () => loadMasterKeys(config({ NODE_ENV })),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /CONNECTIONS_MASTER_KEY: required/);
        return true;
      },
    );
  }
  for (const NODE_ENV of ["development", "test"]) {
    const keys = loadMasterKeys(config({ NODE_ENV }));
    assert.equal(keys.development, true);
    assert.deepEqual(keys.current.key, developmentMasterKey());
  }
  const key = randomBytes(32).toString("base64");
  const prod = loadMasterKeys(config({ NODE_ENV: "production", CONNECTIONS_MASTER_KEY: key }));
  assert.equal(prod.development, false);
  assert.deepEqual(prod.current.key, Buffer.from(key, "base64"));
});

test("master keys are checked: 32 bytes of base64, previous versions distinct from the current one", () => {
  assert.throws(() => decodeMasterKey(randomBytes(16).toString("base64"), "K"), /must be 32 bytes/);
  assert.throws(() => decodeMasterKey("not base64!", "K"), /not base64/);
  const k1 = randomBytes(32).toString("base64");
  const k2 = randomBytes(32).toString("base64");
  const keys = loadMasterKeys(
    config({
      CONNECTIONS_MASTER_KEY: k2,
      CONNECTIONS_MASTER_KEY_VERSION: 2,
      CONNECTIONS_PREVIOUS_MASTER_KEYS: JSON.stringify({ 1: k1 }),
    }),
  );
  assert.equal(keys.current.version, 2);
  assert.deepEqual([...keys.byVersion.keys()].sort(), [1, 2]);
  assert.throws(
    () =>
      loadMasterKeys(
        config({
          CONNECTIONS_MASTER_KEY: k2,
          CONNECTIONS_MASTER_KEY_VERSION: 2,
          CONNECTIONS_PREVIOUS_MASTER_KEYS: JSON.stringify({ 2: k1, x: k1 }),
        }),
      ),
    (err: Error) =>
      /\["2"\]: is the current version/.test(err.message) && /\["x"\]: not a version number/.test(err.message),
  );
});
