/**
 * connection.get, connection.list and connection.revoke: what a tenant sees of its connections (never
 * a credential), kit pagination, tenant isolation (another tenant's connections do not exist for it),
 * and errors that name the field.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type ConnectionsTest, startConnections, until } from "../test/helpers.ts";

let t: ConnectionsTest;
before(async () => {
  t = await startConnections({
    providers: (auth) => ({
      payments: auth.providerConfig(),
      email: auth.providerConfig(),
      crm: auth.providerConfig(),
    }),
  });
});
after(async () => t?.stop());

test("connection.get: the tenant's connection for the service and whose account is used; never a token", async () => {
  const none = await t.s.call("connection.get", { service: "payments" }, { tenant: "get-co" });
  assert.deepEqual(none, { service: "payments", credentialSource: "none", connection: null });
  const noneEmail = await t.s.call("connection.get", { service: "email" }, { tenant: "get-co" });
  assert.deepEqual(noneEmail, { service: "email", credentialSource: "platform", connection: null });

  const { completed } = await t.connect("payments", { tenant: "get-co", keyId: "key_getter" });
  const got = await t.s.call("connection.get", { service: "payments" }, { tenant: "get-co" });
  assert.equal(got.credentialSource, "tenant");
  assert.equal(got.connection.id, completed.connection.id);
  assert.equal(got.connection.status, "connected");
  assert.equal(got.connection.principalId, "key_getter");
  const { access_token } = await t.resolve("get-co", "payments");
  assert.ok(!JSON.stringify(got).includes(access_token));

  // Another tenant: nothing there.
  const beta = await t.s.call("connection.get", { service: "payments" }, { tenant: "beta" });
  assert.equal(beta.connection, null);

  // A service nobody configured and the tenant never connected names the field.
  await assert.rejects(t.s.call("connection.get", { service: "fax" }, { tenant: "get-co" }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].path, "/input/service");
    assert.match(err.message, /configured: crm, email, payments/);
    return true;
  });
  await assert.rejects(t.s.call("connection.get", {}, { tenant: "get-co" }), { code: "validation_failed" });
});

test("connection.list: newest first, paginated with the kit's cursor, filtered by service and status, own tenant only", async () => {
  const tenant = "list-co";
  const a = await t.connect("payments", { tenant });
  const b = await t.s.call("connection.authorize", { service: "email" }, { tenant });
  const c = await t.connect("crm", { tenant });
  await t.s.call("connection.revoke", { service: "crm" }, { tenant });
  await t.connect("payments", { tenant: "other-co" });

  const all = await t.s.call("connection.list", {}, { tenant });
  assert.deepEqual(
    all.items.map((x: any) => x.id),
    [c.started.connection.id, b.connection.id, a.started.connection.id],
  );
  assert.ok(all.items.every((x: any) => x.tenant === tenant));
  assert.equal(all.nextCursor, null);

  const page1 = await t.s.call("connection.list", { limit: 2 }, { tenant });
  assert.equal(page1.items.length, 2);
  assert.ok(page1.nextCursor);
  const page2 = await t.s.call("connection.list", { limit: 2, cursor: page1.nextCursor }, { tenant });
  assert.deepEqual(
    page2.items.map((x: any) => x.id),
    [a.started.connection.id],
  );
  assert.equal(page2.nextCursor, null);

  const pending = await t.s.call("connection.list", { status: "pending" }, { tenant });
  assert.deepEqual(
    pending.items.map((x: any) => x.service),
    ["email"],
  );
  const revoked = await t.s.call("connection.list", { status: "revoked" }, { tenant });
  assert.deepEqual(
    revoked.items.map((x: any) => x.service),
    ["crm"],
  );
  const payments = await t.s.call("connection.list", { service: "payments" }, { tenant });
  assert.equal(payments.items.length, 1);
  assert.equal(payments.items[0].status, "connected");

  await assert.rejects(t.s.call("connection.list", { cursor: "bm90LWEtY3Vyc29y" }, { tenant }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.equal(err.details[0].code, "invalid_cursor");
    return true;
  });
  await assert.rejects(t.s.call("connection.list", { status: "lost" }, { tenant }), (err: any) => {
    assert.equal(err.code, "validation_failed");
    assert.match(JSON.stringify(err.details), /\/input\/status/);
    return true;
  });
  const empty = await t.s.call("connection.list", {}, { tenant: "nobody-co" });
  assert.deepEqual(empty, { items: [], nextCursor: null });
});

test("connection.revoke by service: revoked at the provider, platform from now on, idempotent; unknown is 404 naming the field", async () => {
  const tenant = "revoke-co";
  const { completed } = await t.connect("email", { tenant });
  const { access_token } = await t.resolve(tenant, "email");
  const r = await t.s.call("connection.revoke", { service: "email" }, { tenant });
  assert.equal(r.service, "email");
  assert.equal(r.credentialSource, "platform");
  assert.equal(r.connection.id, completed.connection.id);
  assert.equal(r.connection.status, "revoked");
  assert.equal(await t.auth.userinfo(access_token), 401);
  const again = await t.s.call("connection.revoke", { service: "email" }, { tenant });
  assert.deepEqual(again, r);
  const get = await t.s.call("connection.get", { service: "email" }, { tenant });
  assert.equal(get.connection.status, "revoked");
  assert.equal(get.credentialSource, "platform");
  await until(() => t.messages.find((m) => m.event === "revoked" && m.connectionId === completed.connection.id));

  await assert.rejects(t.s.call("connection.revoke", { service: "payments" }, { tenant }), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.equal(err.details[0].path, "/input/service");
    return true;
  });
  // Another tenant cannot revoke it by service (it has none) nor by id.
  await assert.rejects(t.s.call("connection.revoke", { service: "email" }, { tenant: "beta" }), { code: "not_found" });

  // After revocation a new consent makes a new connection; the revoked one stays listed.
  const fresh = await t.connect("email", { tenant });
  assert.notEqual(fresh.started.connection.id, completed.connection.id);
  const listed = await t.s.call("connection.list", { service: "email" }, { tenant });
  assert.deepEqual(
    listed.items.map((x: any) => x.status),
    ["connected", "revoked"],
  );
});

test("row-level security: a query with no tenant clause, in another tenant's scope, sees none of this tenant's connections", async () => {
  const { withTenant } = await import("@gantry/kit");
  await t.connect("payments", { tenant: "rls-a" });
  await t.connect("payments", { tenant: "rls-b" });
  const seen = await withTenant("rls-b", async () => await t.s.ctx.db.connection.findMany());
  assert.ok(seen.length >= 1);
  assert.ok(seen.every((r) => r.tenant === "rls-b"));
  const events = await withTenant("rls-b", async () => await t.s.ctx.db.connectionEvent.findMany());
  assert.ok(events.every((e) => e.tenant === "rls-b"));
  const updated = await withTenant("rls-b", async () =>
    t.s.ctx.db.connection.updateMany({ where: { tenant: "rls-a" }, data: { status: "revoked" } }),
  );
  assert.equal(updated.count, 0);
  assert.equal((await t.resolve("rls-a", "payments")).credential_source, "tenant");
});
