/**
 * authenticate (pipeline/authenticate.ts) against a KeyCache whose keys service is a counter of
 * lookups: a key the cache holds is answered from it, yet still refused once it expires and still
 * carries its rotation headers; a malformed gk_ key is refused with the format hint and no lookup.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, GantryError, generateKey, hashKey, type KeyRecord } from "@gantry/kit";
import { KeyCache } from "../key-cache.ts";
import { fakeKeysService } from "../testing/fake-keys-service.ts";
import { authenticate } from "./authenticate.ts";
import type { ResponseHeaders } from "./outcome.ts";

function cacheOf(records: Map<string, KeyRecord>) {
  const { client, lookups } = fakeKeysService(records);
  return { cache: new KeyCache(client, 30_000, createLogger("test", "silent")), lookups };
}

const record = (fields: Partial<KeyRecord>) =>
  ({ id: "key_1", tenant: "acme", expires_at_ms: 0, sunset_at_ms: 0, created_at_ms: 0, ...fields }) as KeyRecord;

async function refusal(p: Promise<unknown>): Promise<GantryError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof GantryError, `refused with a GantryError, got ${String(err)}`);
  return err;
}

test("a held key is answered from the cache, and refused once it expires while held", async () => {
  const key = generateKey();
  const now = Date.now();
  const { cache, lookups } = cacheOf(new Map([[hashKey(key), record({ expires_at_ms: now + 60_000 })]]));
  assert.equal((await authenticate(`Bearer ${key}`, cache, now, {})).id, "key_1");
  assert.equal((await authenticate(`Bearer ${key}`, cache, now + 1_000, {})).id, "key_1");
  assert.equal(lookups.length, 1, "the second call is answered from the cache");
  const err = await refusal(authenticate(`Bearer ${key}`, cache, now + 60_000, {}));
  assert.equal(err.code, "unauthorized");
});

test("a held rotated key still gets its Deprecation and Sunset headers", async () => {
  const key = generateKey();
  const rotated = record({ created_at_ms: Date.UTC(2026, 0, 1), sunset_at_ms: Date.UTC(2030, 0, 1) });
  const { cache } = cacheOf(new Map([[hashKey(key), rotated]]));
  for (let i = 0; i < 2; i++) {
    const headers: ResponseHeaders = {};
    await authenticate(`Bearer ${key}`, cache, Date.now(), headers);
    assert.equal(headers.Deprecation, `@${Date.UTC(2026, 0, 1) / 1000}`);
    assert.equal(headers.Sunset, new Date(Date.UTC(2030, 0, 1)).toUTCString());
  }
});

test("a gk_ key with a wrong checksum is refused with the format hint, without a lookup", async () => {
  const key = generateKey();
  const bad = key.slice(0, -1) + (key.endsWith("a") ? "b" : "a");
  const { cache, lookups } = cacheOf(new Map([[hashKey(key), record({})]]));
  await authenticate(`Bearer ${key}`, cache, Date.now(), {});
  const err = await refusal(authenticate(`Bearer ${bad}`, cache, Date.now(), {}));
  assert.equal(err.code, "unauthorized");
  assert.match(err.reason ?? "", /start with gk_ and are 39 characters/);
  assert.equal(lookups.length, 1, "only the good key was looked up");
  const long = await refusal(authenticate(`Bearer ${"x".repeat(600)}`, cache, Date.now(), {}));
  assert.match(long.reason ?? "", /start with gk_/);
});
