/**
 * The bootstrap admin key: generated once and printed once when GANTRY_ADMIN_KEY is unset;
 * registered idempotently when it is set; a malformed one stops the service with a clear message.
 * It holds everything its `*` says (memory collections, guide products, sub-tenants), and a key made
 * before that is widened by its migration.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { generateKey } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

function printedKeys(logs: string): string[] {
  return [...logs.matchAll(/"adminKey":"(gk_[0-9A-Za-z]{36})"/g)].map((m) => m[1]);
}

describe("GANTRY_ADMIN_KEY unset", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({ services: ["keys", "memory", "content"], env: { GANTRY_ADMIN_KEY: undefined } });
  });
  after(async () => t?.stop());

  test("the printed key alone saves and searches memory, publishes a guide and acts for a sub-tenant", async () => {
    const key = await eventually(async () => printedKeys(t.stack.logs())[0]);
    const inspected = (await t.call("key.inspect", { input: {} }, key).expect(200)).body.result;
    assert.deepEqual(
      { collections: inspected.collections, products: inspected.products, subTenants: inspected.subTenants },
      { collections: ["*"], products: ["*"], subTenants: true },
    );
    const saved = await t.call("memory.save", { input: { text: "The blue door opens at nine." } }, key).expect(200);
    assert.equal(saved.body.result.collection, "default", "a key holding only `*` saves to `default`");
    await t.call("memory.save", { input: { text: "Invoices go out on Fridays.", collection: "ops" } }, key).expect(200);
    const found = await t.call("memory.search", { input: { query: "when does the blue door open" } }, key).expect(200);
    assert.equal(found.body.result.hits[0]?.text, "The blue door opens at nine.");
    const inOps = await t.call("memory.search", { input: { query: "invoices", collection: "ops" } }, key).expect(200);
    assert.equal(inOps.body.result.hits[0]?.text, "Invoices go out on Fridays.");
    const guide = await t
      .call(
        "guide.publish",
        {
          input: {
            product: "first-steps",
            slug: "hello",
            title: "Hello",
            area: "Start",
            markdown: "Hi.",
            deploy: false,
          },
        },
        key,
      )
      .expect(200);
    assert.equal(guide.body.result.action, "created");
    const sub = await t
      .call("memory.save", { input: { text: "shop note" }, context: { tenantId: "shop1" } }, key)
      .expect(200);
    assert.equal(sub.body.result.collection, "default");
  });

  test("a key it issues is narrowed to what it was given", async () => {
    const key = await eventually(async () => printedKeys(t.stack.logs())[0]);
    const issued = (
      await t
        .call(
          "key.issue",
          {
            input: {
              name: "notes only",
              scopes: ["memory.*", "guide.*", "key.issue"],
              collections: ["notes"],
              products: ["shop"],
            },
          },
          key,
        )
        .expect(200)
    ).body.result;
    assert.deepEqual([issued.collections, issued.products, issued.subTenants], [["notes"], ["shop"], false]);
    await t.call("memory.save", { input: { text: "a note" } }, issued.key).expect(200);
    const other = await t.call("memory.search", { input: { query: "x", collection: "ops" } }, issued.key).expect(403);
    assert.match(other.body.error, /"ops" is outside this key's scope/);
    const wrong = { product: "first-steps", slug: "x", title: "X", area: "A", markdown: "x", deploy: false };
    const refused = await t.call("guide.publish", { input: wrong }, issued.key).expect(403);
    assert.equal(refused.body.details[0].code, "product_not_allowed");
    // `*` is granted only by a key holding it.
    const wider = await t
      .call("key.issue", { input: { name: "wider", scopes: ["memory.*"], collections: ["*"] } }, issued.key)
      .expect(403);
    assert.equal(wider.body.details[0].path, "/input/collections");
  });

  test("a key is generated, printed once, stored only as a hash, and works as an admin key", async () => {
    const printed = await eventually(async () => printedKeys(t.stack.logs())[0]);
    const res = await t.call("gantry.about", { input: {} }, printed).expect(200);
    assert.equal(res.body.result.tenant, "platform");
    assert.equal(res.body.result.admin, true);
    const { rows } = await t.db.query(
      "SELECT secret_hash, scopes, admin FROM keys.api_keys WHERE origin = 'bootstrap'",
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].scopes, ["*"]);
    const dump = await t.db.query("SELECT row_to_json(k)::text AS j FROM keys.api_keys k");
    assert.ok(
      dump.rows.every((r) => !r.j.includes(printed)),
      "the raw key is not stored",
    );
  });

  test("a restart neither generates another key nor prints it again", async () => {
    await t.stack.stopService("keys");
    await t.stack.startService("keys");
    await t.stack.waitHealthy("keys");
    assert.equal(printedKeys(t.stack.logs()).length, 1);
    const { rows } = await t.db.query("SELECT count(*)::int AS n FROM keys.api_keys WHERE origin = 'bootstrap'");
    assert.equal(rows[0].n, 1);
  });
});

describe("GANTRY_ADMIN_KEY set", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({ services: ["keys"] });
  });
  after(async () => t?.stop());

  test("is registered once, across restarts, as an admin of tenant platform with scope *", async () => {
    await t.stack.stopService("keys");
    await t.stack.startService("keys");
    await t.stack.waitHealthy("keys");
    const { rows } = await t.db.query("SELECT tenant, scopes, admin FROM keys.api_keys WHERE origin = 'bootstrap-env'");
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0], { tenant: "platform", scopes: ["*"], admin: true });
    const held = await t.db.query(
      "SELECT collections, products, sub_tenants FROM keys.api_keys WHERE origin = 'bootstrap-env'",
    );
    assert.deepEqual(held.rows[0], { collections: ["*"], products: ["*"], sub_tenants: true });
    assert.equal(printedKeys(t.stack.logs()).length, 0);
    assert.ok(!t.stack.logs().includes(t.adminKey), "the configured key never appears in the logs");
  });
});

describe("GANTRY_ADMIN_KEY malformed", () => {
  test("the keys service refuses to start and says why", async () => {
    const bad = `${generateKey().slice(0, -1)}!`;
    await assert.rejects(
      startTestStack({
        services: ["keys"],
        gateways: 0,
        restart: false,
        healthTimeoutMs: 15_000,
        env: { GANTRY_ADMIN_KEY: bad },
      }),
      (err: Error) => /GANTRY_ADMIN_KEY is not a well-formed Gantry key/.test(err.message),
    );
  });
});

describe("a bootstrap key made before it held everything", () => {
  let t: TestStack;
  before(async () => {
    t = await startTestStack({ services: ["keys", "memory"] });
  });
  after(async () => t?.stop());

  test("the migration widens it and the successor key.rotate minted from it, nothing else", async () => {
    const old = await t.insertKey({ tenant: "platform", admin: true });
    const successor = await t.insertKey({ tenant: "platform", admin: true });
    const issued = await t.insertKey({ tenant: "platform", admin: true });
    await t.db.query("UPDATE keys.api_keys SET origin = 'bootstrap', rotated_to = $2 WHERE id = $1", [
      old.id,
      successor.id,
    ]);
    await t.db.query("UPDATE keys.api_keys SET origin = 'rotation' WHERE id = $1", [successor.id]);

    const sql = readFileSync(
      new URL("../prisma/migrations/20261228000000_bootstrap_key_grants/migration.sql", import.meta.url),
      "utf8",
    );
    const c = await t.db.connect();
    try {
      await c.query("SET search_path TO keys");
      await c.query(sql);
    } finally {
      await c.query("RESET search_path");
      c.release();
    }
    const { rows } = await t.db.query(
      "SELECT id, collections, products, sub_tenants FROM keys.api_keys WHERE id = ANY($1) ORDER BY id",
      [[old.id, successor.id, issued.id]],
    );
    const byId = new Map(rows.map((r) => [r.id, [r.collections, r.products, r.sub_tenants]]));
    assert.deepEqual(byId.get(old.id), [["*"], ["*"], true]);
    assert.deepEqual(byId.get(successor.id), [["*"], ["*"], true]);
    assert.deepEqual(byId.get(issued.id), [[], [], false], "a key.issue key keeps what it was given");
    // Used for the first time now, so no gateway holds its old grant in the 30 s key cache.
    const saved = await t.call("memory.save", { input: { text: "x" } }, successor.key).expect(200);
    assert.equal(saved.body.result.collection, "default");
  });
});
