/**
 * Containment rules (unit): what a tenant key may grant.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { excess, scopeCovers, type Grant } from "./containment.ts";

const base: Grant = {
  tenant: "acme",
  scopes: ["contact.*", "task.create", "integration.*"],
  collections: ["support", "sales"],
  products: ["shop"],
  admin: false,
  subTenants: false,
  rateLimit: { limit: 100, windowSeconds: 60 },
  expiresAt: null,
};

test("scope coverage is by pattern", () => {
  assert.ok(scopeCovers("*", "*"));
  assert.ok(scopeCovers("*", "payment.initiate"));
  assert.ok(scopeCovers("contact.*", "contact.*"));
  assert.ok(scopeCovers("contact.*", "contact.get"));
  assert.ok(scopeCovers("integration.*", "integration.app.*"));
  assert.ok(scopeCovers("task.create", "task.create"));
  assert.ok(!scopeCovers("contact.*", "*"));
  assert.ok(!scopeCovers("integration.app.*", "integration.*"));
  assert.ok(!scopeCovers("contact.get", "contact.*"));
  assert.ok(!scopeCovers("task.create", "task.get"));
  assert.ok(!scopeCovers("contact.*", "contacts.get"));
});

test("a narrower or equal grant passes", () => {
  assert.deepEqual(excess(base, base), []);
  assert.deepEqual(
    excess(base, {
      ...base,
      scopes: ["contact.get", "integration.app.*"],
      collections: ["sales"],
      products: [],
      rateLimit: { limit: 10, windowSeconds: 60 },
    }),
    [],
  );
});

test("each dimension that exceeds is named, with the abilities a scope would add", () => {
  const over = excess(base, {
    ...base,
    tenant: "globex",
    scopes: ["*", "task.*", "payment.initiate"],
    collections: ["support", "secret"],
    products: ["other"],
    admin: true,
    subTenants: true,
    rateLimit: { limit: 1000, windowSeconds: 60 },
  });
  const paths = over.map((d) => d.path);
  assert.deepEqual(
    [...new Set(paths)].sort(),
    [
      "/input/admin",
      "/input/collections",
      "/input/products",
      "/input/rateLimit",
      "/input/scopes",
      "/input/subTenants",
      "/input/tenant",
    ].sort(),
  );
  assert.ok(over.every((d) => d.code === "exceeds_caller"));
  const scopes = over.filter((d) => d.path === "/input/scopes");
  assert.equal(scopes.length, 3);
  const taskStar = scopes.find((d) => d.scope === "task.*")!;
  assert.ok((taskStar.abilities as string[]).includes("task.get"));
  assert.ok(!(taskStar.abilities as string[]).includes("task.create"));
  assert.match(String(over.find((d) => d.path === "/input/collections")!.message), /"secret"/);
});

test("`*` collections or products cover every name, and only a holder of `*` grants `*`", () => {
  const all = { ...base, collections: ["*"], products: ["*"] };
  assert.deepEqual(excess(all, { ...base, collections: ["anything", "*"], products: ["any-product", "*"] }), []);
  const over = excess(base, { ...base, collections: ["*"], products: ["*"] });
  assert.deepEqual(
    over.map((d) => [d.path, d.collections ?? d.products]),
    [
      ["/input/collections", ["*"]],
      ["/input/products", ["*"]],
    ],
  );
});

test("a pattern whose abilities the caller holds one by one is still refused (future abilities)", () => {
  const caller = { ...base, scopes: ["contact.create", "contact.get", "contact.list", "contact.update"] };
  const [d] = excess(caller, { ...caller, scopes: ["contact.*"] });
  assert.equal(d.path, "/input/scopes");
  assert.match(d.message, /added under it later/);
  assert.deepEqual(excess(caller, { ...caller, scopes: ["contact.get", "contact.list"] }), []);
});

test("rate limit: neither a higher burst nor a higher rate", () => {
  const r = (limit: number, windowSeconds: number) =>
    excess(base, { ...base, rateLimit: { limit, windowSeconds } }).length;
  assert.equal(r(100, 60), 0);
  assert.equal(r(50, 60), 0);
  assert.equal(r(100, 120), 0);
  assert.equal(r(101, 600), 1, "higher burst");
  assert.equal(r(50, 1), 1, "higher rate");
});

test("expiry: a caller that expires cannot mint a key that expires later or never", () => {
  const caller = { ...base, expiresAt: 1_000_000 };
  assert.deepEqual(excess(caller, { ...caller, expiresAt: 999_999 }), []);
  assert.equal(excess(caller, { ...caller, expiresAt: 1_000_001 })[0].path, "/input/expiresInHours");
  assert.match(excess(caller, { ...caller, expiresAt: null })[0].message, /never expire/);
  assert.deepEqual(excess(base, { ...base, expiresAt: 5 }), [], "a non-expiring caller may mint expiring keys");
});
