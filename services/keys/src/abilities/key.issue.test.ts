/**
 * key.issue through the gateway: the minted key works with exactly what it was given, containment
 * refusals name what exceeds, admin keys are root keys, and the raw secret never reaches a log.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { hashKey, isWellFormedKey } from "@gantry/kit";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { assertNoSecretsInLogs, startKeysStack, type KeysTestStack } from "../testing.ts";

const t: KeysTestStack = await startKeysStack();
after(async () => t.stop());

describe("happy path", () => {
  test("an admin key issues a key for a tenant; its raw secret is shown once and works", async () => {
    const k = await t.issue({
      name: "Support agent",
      tenant: "acme",
      scopes: ["key.inspect", "gantry.about"],
      collections: ["support"],
      expiresInHours: 720,
      rateLimit: { limit: 50, windowSeconds: 60 },
    });
    assert.match(k.id, /^key_[A-Za-z0-9]+$/);
    assert.ok(isWellFormedKey(k.key));
    assert.equal(k.prefix, k.key.slice(0, 11));
    assert.equal(k.tenant, "acme");
    assert.deepEqual(k.scopes, ["key.inspect", "gantry.about"]);
    assert.deepEqual(k.collections, ["support"]);
    assert.deepEqual(k.rateLimit, { limit: 50, windowSeconds: 60 });
    assert.ok(Math.abs(Date.parse(k.expires!) - Date.parse(k.created) - 720 * 3_600_000) < 1_000);
    // Only the hash is stored.
    const { rows } = await t.db.query(`SELECT * FROM keys.api_keys WHERE id = $1`, [k.id]);
    assert.equal(rows[0].secret_hash, hashKey(k.key));
    assert.ok(!JSON.stringify(rows[0]).includes(k.key.slice(11)));
    // It authenticates, with its own rate limit, and its scopes decide.
    const about = await t.call("gantry.about", { input: {} }, k.key).expect(200);
    assert.equal(about.headers["ratelimit-policy"], '"per-key";q=50;w=60');
    const inspect = await t.call("key.inspect", { input: {} }, k.key).expect(200);
    assert.equal(inspect.body.result.id, k.id);
    await t.call("key.list", { input: {} }, k.key).expect(403);
  });

  test("the gateway enforces the issued key's own rate limit", async () => {
    const k = await t.issue({
      name: "throttled",
      tenant: "acme",
      scopes: ["gantry.about"],
      rateLimit: { limit: 2, windowSeconds: 60 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.call("gantry.about", { input: {} }, k.key)).status);
    assert.deepEqual(statuses, [200, 200, 429]);
  });

  test("the trail records who issued it", async () => {
    const k = await t.issue({ name: "audited", tenant: "acme", scopes: ["key.inspect"] });
    const { rows } = await t.db.query(`SELECT kind, actor_key_id, request_id FROM keys.key_events WHERE key_id = $1`, [
      k.id,
    ]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].kind, "issued");
    assert.match(rows[0].actor_key_id, /^key_/);
    assert.ok(rows[0].request_id);
  });

  test("a tenant key issues within itself; omitted expiry and rate limit are inherited", async () => {
    const parent = await t.issue({
      name: "parent",
      tenant: "acme",
      scopes: ["key.*", "contact.*"],
      collections: ["a", "b"],
      products: ["shop"],
      expiresInHours: 10,
      rateLimit: { limit: 100, windowSeconds: 60 },
    });
    const res = await t
      .call(
        "key.issue",
        { input: { name: "child", scopes: ["contact.get", "key.inspect"], collections: ["a"] } },
        parent.key,
      )
      .expect(200);
    const child = res.body.result;
    t.secrets.add(child.key);
    assert.equal(child.tenant, "acme");
    assert.equal(child.expires, parent.expires);
    assert.deepEqual(child.rateLimit, { limit: 100, windowSeconds: 60 });
    assert.deepEqual(child.products, []);
    assert.equal(child.admin, false);
    // Same pattern as the parent holds is fine too.
    const same = await t
      .call("key.issue", { input: { name: "same", scopes: ["contact.*"], tenant: "acme" } }, parent.key)
      .expect(200);
    t.secrets.add(same.body.result.key);
  });

  test("a tenant key acting for a sub-tenant issues for that sub-tenant (its own row lives under its tenant)", async () => {
    const parent = await t.issue({
      name: "parent",
      tenant: "acme",
      scopes: ["key.issue", "key.list", "gantry.about"],
      subTenants: true,
    });
    const res = await t
      .call(
        "key.issue",
        { input: { name: "shop key", scopes: ["gantry.about"] }, context: { tenantId: "shop1" } },
        parent.key,
      )
      .expect(200);
    t.secrets.add(res.body.result.key);
    assert.equal(res.body.result.tenant, "acme/shop1");
    const list = await t.call("key.list", { input: {}, context: { tenantId: "shop1" } }, parent.key).expect(200);
    assert.deepEqual(
      list.body.result.keys.map((k: { id: string }) => k.id),
      [res.body.result.id],
    );
  });

  test("admin keys are root keys: any tenant, admin flag, any scope", async () => {
    const k = await t.issue({ name: "ops", tenant: "globex", scopes: ["*"], admin: true, subTenants: true });
    assert.equal(k.admin, true);
    assert.equal(k.expires, null);
    assert.equal(k.rateLimit, null);
    const list = await t.call("key.list", { input: { tenant: "acme" } }, k.key).expect(200);
    assert.ok(list.body.result.keys.length > 0, "an admin key of any tenant sees every tenant");
  });
});

describe("containment: a tenant key can never mint wider than itself", () => {
  let parent: Awaited<ReturnType<KeysTestStack["issue"]>>;
  before(async () => {
    parent = await t.issue({
      name: "limited",
      tenant: "acme",
      scopes: ["key.issue", "contact.get", "contact.list"],
      collections: ["support"],
      products: ["shop"],
      expiresInHours: 5,
      rateLimit: { limit: 1000, windowSeconds: 60 },
    });
  });

  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ["a scope it does not hold", { scopes: ["payment.initiate"] }, "/input/scopes", /payment\.initiate/],
    ["a pattern wider than its ids", { scopes: ["contact.*"] }, "/input/scopes", /contact\.create/],
    ["everything", { scopes: ["*"] }, "/input/scopes", /"\*"/],
    ["a collection", { collections: ["support", "finance"] }, "/input/collections", /"finance"/],
    ["a product", { products: ["other"] }, "/input/products", /"other"/],
    ["the admin flag", { admin: true }, "/input/admin", /admin/],
    ["the sub-tenant flag", { subTenants: true }, "/input/subTenants", /sub-tenants/],
    [
      "a higher rate limit",
      { rateLimit: { limit: 1001, windowSeconds: 60 } },
      "/input/rateLimit",
      /exceeds this key's 1000 per 60 s/,
    ],
    [
      "a higher rate in a shorter window",
      { rateLimit: { limit: 500, windowSeconds: 10 } },
      "/input/rateLimit",
      /rate limit/,
    ],
    ["a later expiry", { expiresInHours: 6 }, "/input/expiresInHours", /later than this key's/],
    ["another tenant", { tenant: "globex" }, "/input/tenant", /globex/],
  ];
  for (const [what, extra, path, message] of cases) {
    test(`refuses ${what} with 403 naming it`, async () => {
      const res = await t
        .call("key.issue", { input: { name: "wider", scopes: ["contact.get"], ...extra } }, parent.key)
        .expect(403);
      assert.equal(res.body.code, "forbidden");
      const d = res.body.details.find((x: { path: string }) => x.path === path);
      assert.ok(d, JSON.stringify(res.body.details));
      assert.equal(d.code, "exceeds_caller");
      assert.match(d.message, message);
      assert.match(res.body.error, message);
    });
  }

  test("several excesses are all named at once, and nothing was stored", async () => {
    const before = await t.db.query(`SELECT count(*)::int AS n FROM keys.api_keys`);
    const res = await t
      .call("key.issue", { input: { name: "wider", scopes: ["*"], admin: true, collections: ["x"] } }, parent.key)
      .expect(403);
    assert.deepEqual(res.body.details.map((d: { path: string }) => d.path).sort(), [
      "/input/admin",
      "/input/collections",
      "/input/scopes",
    ]);
    const after = await t.db.query(`SELECT count(*)::int AS n FROM keys.api_keys`);
    assert.equal(after.rows[0].n, before.rows[0].n);
  });

  test("a key minted by a tenant key cannot re-widen either (grandchild)", async () => {
    const child = await t
      .call("key.issue", { input: { name: "child", scopes: ["key.issue", "contact.get"] } }, parent.key)
      .expect(200);
    t.secrets.add(child.body.result.key);
    const res = await t
      .call("key.issue", { input: { name: "grandchild", scopes: ["contact.list"] } }, child.body.result.key)
      .expect(403);
    assert.match(res.body.details[0].message, /contact\.list/);
  });
});

describe("input errors", () => {
  test("a scope matching no ability is a 400 with unknown_scope, for admins too", async () => {
    const res = await t
      .call("key.issue", { input: { name: "typo", scopes: ["contacts.get", "contact.get"] } })
      .expect(400);
    assert.equal(res.body.details[0].code, "unknown_scope");
    assert.equal(res.body.details[0].scope, "contacts.get");
  });
  test("schema errors: missing name, malformed scope", async () => {
    await t.call("key.issue", { input: { scopes: ["*"] } }).expect(400);
    const res = await t.call("key.issue", { input: { name: "x", scopes: ["con tact"] } }).expect(400);
    assert.equal(res.body.details[0].path, "/input/scopes/0");
  });
});

test("no raw secret appears in any process's log, nor in any table (audit records included)", async () => {
  assertNoSecretsInLogs(t);
  // The audit writer is asynchronous: wait until it has written this file's key.issue calls.
  await eventually(
    async () =>
      (await t.db.query(`SELECT 1 FROM keys.audit_records WHERE ability = 'key.issue' AND status = 200 LIMIT 1`))
        .rowCount,
  );
  for (const table of ["api_keys", "key_events", "audit_records"]) {
    const { rows } = await t.db.query(`SELECT row_to_json(x)::text AS j FROM keys.${table} x`);
    const dump = rows.map((r) => r.j).join("\n");
    for (const s of t.secrets) assert.ok(!dump.includes(s.slice(11)), `${table} holds a raw secret`);
  }
});
