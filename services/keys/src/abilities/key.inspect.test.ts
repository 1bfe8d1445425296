/**
 * key.inspect through the gateway: any authenticated key may call it, whatever its scopes; it
 * reports the calling key (expanded abilities, flags, dates, trail) and nothing of other keys.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { runService, withTenant, type CallContext } from "@gantry/kit";
import { expandScopes } from "@gantry/proto/catalogue";
import type { KeyView } from "../records.ts";
import service from "../service.ts";
import { startKeysStack, type KeysTestStack } from "../testing.ts";
import keyInspect from "./key.inspect.ts";

const t: KeysTestStack = await startKeysStack();
// The service in-process too, for what a gateway never lets through (a key past its expiry).
const svc = await runService(service, {
  ...t.stack.env,
  DATABASE_URL: t.stack.databaseUrls.keys,
  GRPC_PORT: "0",
  GRPC_HOST: "127.0.0.1",
});
after(async () => {
  await svc.stop();
  await t.stop();
});

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

test("the trail shows the latest 50 events, oldest first, ties in the order they were recorded", async () => {
  const k = await t.issue({ name: "long trail", tenant: "acme", scopes: ["key.inspect"] });
  // 59 more after `issued`, one a second; the last two share a time.
  const base = Date.parse(k.created);
  await t.db.query(
    `INSERT INTO keys.key_events (key_id, kind, reason, at)
     SELECT $1, 'rotated', 'r' || i, $2::timestamptz + least(i, 58) * interval '1 second'
       FROM generate_series(1, 59) i ORDER BY i`,
    [k.id, new Date(base)],
  );
  const res = await t.call("key.inspect", { input: {} }, k.key).expect(200);
  const events = res.body.result.events as Array<{ kind: string; at: string; reason: string }>;
  assert.equal(events.length, 50);
  assert.deepEqual(
    events.map((e) => e.reason),
    Array.from({ length: 50 }, (_, i) => `r${i + 10}`),
  );
  assert.equal(events[0].at, new Date(base + 10_000).toISOString());
  assert.equal(events[49].at, new Date(base + 58_000).toISOString());
});

test("a key read past its expiry reports it expired, its trail ending with the expiry, recorded once", async () => {
  const expiresAt = new Date(Date.now() - 3_600_000);
  const { id } = await t.insertKey({ tenant: "acme", name: "lapsed", scopes: ["key.inspect"], expiresAt });
  const call: CallContext = {
    requestId: "req_lapsed",
    tenant: "acme",
    keyTenant: "acme",
    keyId: id,
    scopes: ["key.inspect"],
    collections: [],
    products: [],
    admin: false,
    subTenants: false,
  };
  for (let i = 0; i < 2; i++) {
    const r = (await withTenant("acme", () => keyInspect.run({}, call, svc.ctx))) as KeyView;
    assert.equal(r.status, "expired");
    assert.equal(r.expires, expiresAt.toISOString());
    assert.deepEqual(r.events, [
      { kind: "expired", at: expiresAt.toISOString(), reason: "expiry reached", actorKeyId: null, requestId: null },
    ]);
  }
});
