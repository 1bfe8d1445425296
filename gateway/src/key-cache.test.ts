/**
 * KeyCache (issue 27, item 6): made-up keys, however many, never push a real key out of the cache;
 * both kinds are bounded. The keys service is stood in for by a counter of lookups: what is tested
 * is which lookups the cache saves, not the service.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger, type KeyRecord } from "@gantry/kit";
import { KeyCache } from "./key-cache.ts";
import { fakeKeysService as keysService } from "./testing/fake-keys-service.ts";

test("a flood of unknown keys does not evict a known key, and the cache stays bounded", async () => {
  const real = { id: "key_real", tenant: "acme" } as unknown as KeyRecord;
  const { client, lookups } = keysService(new Map([["h-real", real]]));
  const cache = new KeyCache(client, 30_000, createLogger("test", "silent"));
  assert.equal(await cache.resolve("h-real"), real);
  for (let i = 0; i < 120_000; i++) assert.equal(await cache.resolve(`h-unknown-${i}`), null);
  const before = lookups.length;
  assert.equal(await cache.resolve("h-real"), real);
  assert.equal(lookups.length, before, "the real key was answered from the cache");
  assert.ok(cache.size <= 10_001, `the cache holds ${cache.size} entries`);
});

test("an unknown key is remembered briefly, and forgotten when a key is issued", async () => {
  const known = new Map<string, KeyRecord>();
  const { client, lookups } = keysService(known);
  const cache = new KeyCache(client, 30_000, createLogger("test", "silent"));
  assert.equal(await cache.resolve("h-new"), null);
  assert.equal(await cache.resolve("h-new"), null);
  assert.equal(lookups.length, 1);
  const issued = { id: "key_new", tenant: "acme" } as unknown as KeyRecord;
  known.set("h-new", issued);
  cache.forgetUnknown();
  assert.equal(await cache.resolve("h-new"), issued);
});

test("held: the record of a key held as valid; nothing for an unknown key or one past its TTL", async () => {
  const real = { id: "key_real", tenant: "acme" } as unknown as KeyRecord;
  const { client } = keysService(new Map([["h-real", real]]));
  let now = 1_000_000;
  const cache = new KeyCache(client, 30_000, createLogger("test", "silent"), () => now);
  assert.equal(cache.held("h-real"), undefined, "not looked up yet");
  await cache.resolve("h-real");
  await cache.resolve("h-unknown");
  assert.equal(cache.held("h-real"), real);
  assert.equal(cache.held("h-unknown"), undefined, "an unknown key is never held");
  now += 30_000;
  assert.equal(cache.held("h-real"), undefined, "past the TTL it is looked up again");
});
