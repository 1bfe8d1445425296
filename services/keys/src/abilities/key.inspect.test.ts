/**
 * key.inspect through the gateway: any authenticated key may call it, whatever its scopes; it
 * reports the calling key (expanded abilities, flags, dates, trail) and nothing of other keys.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { expandScopes } from "@gantry/proto/catalogue";
import { startKeysStack, type KeysTestStack } from "../testing.ts";

const t: KeysTestStack = await startKeysStack();
after(async () => t.stop());

test("any authenticated key may call it, even one without key.* scopes", async () => {
  const k = await t.issue({
    name: "contacts only",
    tenant: "acme",
    scopes: ["contact.*"],
    collections: ["support", "sales"],
    products: ["shop"],
    subTenants: true,
    expiresInHours: 24,
    rateLimit: { limit: 30, windowSeconds: 60 },
  });
  const res = await t.call("key.inspect", { input: {} }, k.key).expect(200);
  const r = res.body.result;
  assert.equal(r.id, k.id);
  assert.equal(r.tenant, "acme");
  assert.equal(r.name, "contacts only");
  assert.equal(r.prefix, k.prefix);
  assert.equal(r.status, "active");
  assert.equal(r.source, "key");
  assert.deepEqual(r.scopes, ["contact.*"]);
  assert.deepEqual(
    r.abilities,
    [
      ...expandScopes(["contact.*"]),
      "capability.discover",
      "gantry.about",
      "key.inspect",
      "vertical.manifest_get",
    ].sort(),
  );
  assert.ok(r.abilities.includes("contact.get"));
  assert.deepEqual(r.collections, ["support", "sales"]);
  assert.deepEqual(r.products, ["shop"]);
  assert.equal(r.subTenants, true);
  assert.equal(r.admin, false);
  assert.deepEqual(r.rateLimit, { limit: 30, windowSeconds: 60 });
  assert.equal(r.created, k.created);
  assert.equal(r.expires, k.expires);
  assert.equal(r.lastUsed, null);
  assert.deepEqual(
    r.events.map((e: { kind: string }) => e.kind),
    ["issued"],
  );
  assert.ok(!JSON.stringify(r).includes(k.key.slice(11)), "never the secret");
  // It still cannot call what its scopes exclude.
  await t.call("key.list", { input: {} }, k.key).expect(403);
});

test("the admin key reports itself as admin with every ability", async () => {
  const res = await t.call("key.inspect", { input: {} }).expect(200);
  assert.equal(res.body.result.admin, true);
  assert.equal(res.body.result.tenant, "platform");
  assert.deepEqual(res.body.result.abilities, expandScopes(["*"]));
});

test("a sub-tenant call reports the acting tenant beside the key's", async () => {
  const k = await t.issue({ name: "parent", tenant: "acme", scopes: ["key.inspect"], subTenants: true });
  const res = await t.call("key.inspect", { input: {}, context: { tenantId: "shop1" } }, k.key).expect(200);
  assert.equal(res.body.result.tenant, "acme");
  assert.equal(res.body.result.actingTenant, "acme/shop1");
});

test("input must be empty", async () => {
  const res = await t.call("key.inspect", { input: { id: "key_other" } }).expect(400);
  assert.equal(res.body.details[0].path, "/input/id");
});
