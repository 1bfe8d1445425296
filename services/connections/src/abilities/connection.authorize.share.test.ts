/**
 * connection.authorize `share` and `revoke` with `shareId` (issue 14 item 4): the owner grants
 * another principal chosen tools of a connection until `expiresAt`; every use is checked
 * (`authorizeUse`: 403 without a share, for a tool not shared, after expiry or revocation); shares are
 * revocable one by one and end with the connection; the trail and NATS carry them; RLS holds.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { withTenant } from "@gantry/kit";
import { authorizeUse } from "../shares.ts";
import { type ConnectionsTest, startConnections, until } from "../test/helpers.ts";

let t: ConnectionsTest;
before(async () => {
  t = await startConnections({
    providers: (auth) => ({ payments: auth.providerConfig(), crm: auth.providerConfig() }),
  });
});
after(async () => t?.stop());

const owner = { tenant: "share-co", keyId: "key_owner" };
const TOOL = "stripe.create_refund@1";
const OTHER_TOOL = "stripe.list_charges@1";

const use = (principalId: string, connectionId: string, toolId = TOOL, tenant = owner.tenant) =>
  withTenant(tenant, () => authorizeUse(t.s.ctx, { tenant, principalId, connectionId, toolId }));

async function refused(p: Promise<unknown>, code: string, path?: string, message?: RegExp): Promise<void> {
  await assert.rejects(p, (err: any) => {
    assert.equal(err.code, code, err.message);
    if (path) assert.equal(err.details?.[0]?.path, path);
    if (message) assert.match(err.message, message);
    return true;
  });
}

test("share: the owner grants chosen tools until expiresAt; uses are checked; expired shares refuse with 403", async () => {
  const { completed } = await t.connect("payments", owner);
  const connectionId = completed.connection.id;
  const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
  const out = await t.s.call(
    "connection.authorize",
    { action: "share", connectionId, principalId: "key_agent", toolIds: [TOOL], expiresAt },
    owner,
  );
  assert.equal(out.action, "share");
  assert.match(out.share.id, /^shr_[A-Za-z0-9]+$/);
  assert.deepEqual(
    { ...out.share, id: undefined, created: undefined },
    {
      id: undefined,
      created: undefined,
      connectionId,
      principalId: "key_agent",
      toolIds: [TOOL],
      status: "active",
      grantedBy: "key_owner",
      expires: expiresAt,
      revoked: null,
    },
  );

  // Uses: the owner may run anything; the grantee only the shared tool; anyone else nothing.
  assert.equal((await use("key_owner", connectionId, OTHER_TOOL)).access, "owner");
  const granted = await use("key_agent", connectionId);
  assert.equal(granted.access, "shared");
  assert.equal(granted.share?.id, out.share.id);
  await refused(use("key_agent", connectionId, OTHER_TOOL), "forbidden", "/input/toolId", /does not include/);
  await refused(use("key_stranger", connectionId), "forbidden", "/input/connectionId", /not shared/);
  // Another tenant's principal: the connection does not exist for it.
  await refused(use("key_agent", connectionId, TOOL, "other-co"), "not_found", "/input/connectionId");

  // Past expiresAt the share is expired: 403 naming the expiry.
  t.advanceClock(3_600_000 + 1_000);
  await refused(use("key_agent", connectionId), "forbidden", "/input/connectionId", /expired at/);
  assert.equal((await use("key_owner", connectionId)).access, "owner");

  // Trail and NATS.
  const { rows } = await t.s.db.query(
    `SELECT type, principal_id, detail FROM connections.connection_events WHERE connection_id = $1 AND type = 'shared'`,
    [connectionId],
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].principal_id, "key_owner");
  assert.equal(rows[0].detail.grantee, "key_agent");
  const message = await until(() =>
    t.messages.find((m) => (m.event as string) === "shared" && m.connectionId === connectionId),
  );
  assert.equal(message.detail.shareId, out.share.id);
});

test("share: refusals name the field (owner only, not revoked, another principal, future expiry, own tenant)", async () => {
  const tenant = "share-bad";
  const me = { tenant, keyId: "key_me" };
  const { completed } = await t.connect("payments", me);
  const connectionId = completed.connection.id;
  const input = { action: "share", connectionId, principalId: "key_you", toolIds: [TOOL] };
  await refused(
    t.s.call("connection.authorize", input, { tenant, keyId: "key_you" }),
    "forbidden",
    "/input/connectionId",
  );
  await refused(
    t.s.call("connection.authorize", { ...input, principalId: "key_me" }, me),
    "validation_failed",
    "/input/principalId",
  );
  await refused(
    t.s.call("connection.authorize", { ...input, expiresAt: "2001-01-01T00:00:00Z" }, me),
    "validation_failed",
    "/input/expiresAt",
  );
  await refused(
    t.s.call("connection.authorize", input, { tenant: "someone-else", keyId: "key_me" }),
    "not_found",
    "/input/connectionId",
  );
  await refused(t.s.call("connection.authorize", { ...input, toolIds: [] }, me), "validation_failed");
  await refused(t.s.call("connection.authorize", { ...input, toolIds: ["not a tool"] }, me), "validation_failed");
  // Tool ids must name existing versions exactly: an unknown version is 404 naming the item.
  await refused(
    t.s.call("connection.authorize", { ...input, toolIds: [TOOL, "stripe.create_refund@9"] }, me),
    "not_found",
    "/input/toolIds/1",
    /no version 9 \(versions: 1\)/,
  );
  // No expiry: lasts until revoked.
  const lasting = await t.s.call("connection.authorize", input, me);
  assert.equal(lasting.share.expires, null);
  // A revoked connection cannot be shared, and revoking it ended the share.
  await t.s.call("connection.authorize", { action: "revoke", connectionId }, me);
  await refused(t.s.call("connection.authorize", input, me), "conflict", "/input/connectionId");
  await refused(use("key_you", connectionId, TOOL, tenant), "forbidden", "/input/connectionId", /revoked/);
});

test("revoke with shareId: only that share ends (owner only, idempotent); the connection stays connected", async () => {
  const tenant = "share-revoke";
  const me = { tenant, keyId: "key_me" };
  const { completed } = await t.connect("payments", me);
  const connectionId = completed.connection.id;
  const a = await t.s.call(
    "connection.authorize",
    { action: "share", connectionId, principalId: "key_a", toolIds: [TOOL, OTHER_TOOL] },
    me,
  );
  const b = await t.s.call(
    "connection.authorize",
    { action: "share", connectionId, principalId: "key_b", toolIds: [TOOL] },
    me,
  );
  await refused(
    t.s.call(
      "connection.authorize",
      { action: "revoke", connectionId, shareId: a.share.id },
      { tenant, keyId: "key_a" },
    ),
    "forbidden",
    "/input/connectionId",
  );
  await refused(
    t.s.call("connection.authorize", { action: "revoke", connectionId, shareId: "shr_01AAAAAAAAAAAAAAAAAAAAAAAA" }, me),
    "not_found",
    "/input/shareId",
  );
  const revoked = await t.s.call("connection.authorize", { action: "revoke", connectionId, shareId: a.share.id }, me);
  assert.equal(revoked.action, "revoke");
  assert.equal(revoked.connection.status, "connected");
  assert.equal(revoked.share.status, "revoked");
  assert.ok(revoked.share.revoked);
  const again = await t.s.call("connection.authorize", { action: "revoke", connectionId, shareId: a.share.id }, me);
  assert.equal(again.share.revoked, revoked.share.revoked);
  await refused(use("key_a", connectionId, TOOL, tenant), "forbidden", "/input/connectionId", /revoked/);
  assert.equal((await use("key_b", connectionId, TOOL, tenant)).share?.id, b.share.id);
  const { rows } = await t.s.db.query(
    `SELECT count(*)::int AS n FROM connections.connection_events WHERE connection_id = $1 AND type = 'share_revoked'`,
    [connectionId],
  );
  assert.equal(rows[0].n, 1);
});

test("connection_shares is under row-level security: no tenant clause still sees only the call's tenant", async () => {
  const rows = await withTenant("nobody-here", () => t.s.ctx.db.connectionShare.findMany({}));
  assert.equal(rows.length, 0);
  const mine = await withTenant("share-co", () => t.s.ctx.db.connectionShare.findMany({}));
  assert.ok(mine.length >= 1 && mine.every((r) => r.tenant === "share-co"));
});

test("integration.search `connections`: own connections, then active shares (not expired, revoked or of a revoked connection)", async () => {
  const tenant = "share-list";
  const alice = { tenant, keyId: "key_alice" };
  const bob = { tenant, keyId: "key_bob" };
  const pay = (await t.connect("payments", alice)).completed.connection.id;
  const crm = (await t.connect("crm", alice)).completed.connection.id;
  const soon = new Date(t.s.ctx.now() + 60_000).toISOString();
  const lasting = await t.s.call(
    "connection.authorize",
    { action: "share", connectionId: pay, principalId: "key_bob", toolIds: [TOOL] },
    alice,
  );
  await t.s.call(
    "connection.authorize",
    { action: "share", connectionId: crm, principalId: "key_bob", toolIds: [OTHER_TOOL], expiresAt: soon },
    alice,
  );
  // Another tenant's same key id sees nothing of this tenant.
  const elsewhere = await t.s.call(
    "integration.search",
    { action: "connections" },
    { tenant: "x-co", keyId: "key_bob" },
  );
  assert.deepEqual(elsewhere, { action: "connections", connections: [] });

  const mine = await t.s.call("integration.search", { action: "connections" }, alice);
  assert.deepEqual(
    mine.connections.map((c: any) => [c.id, c.access, c.share]),
    [
      [crm, "owner", null],
      [pay, "owner", null],
    ],
  );
  const bobs = await t.s.call("integration.search", { action: "connections" }, bob);
  assert.deepEqual(
    bobs.connections.map((c: any) => [c.id, c.access, c.share.toolIds]),
    [
      [crm, "shared", [OTHER_TOOL]],
      [pay, "shared", [TOOL]],
    ],
  );
  t.advanceClock(61_000); // the crm share expires
  const later = await t.s.call("integration.search", { action: "connections" }, bob);
  assert.deepEqual(
    later.connections.map((c: any) => c.id),
    [pay],
  );
  await t.s.call("connection.authorize", { action: "revoke", connectionId: pay, shareId: lasting.share.id }, alice);
  assert.deepEqual((await t.s.call("integration.search", { action: "connections" }, bob)).connections, []);
  // Tool discovery on a connection whose service has no toolkit: nothing to run; bob's share is revoked: 403.
  const tools = await t.s.call("integration.search", { connectionId: pay }, alice);
  assert.deepEqual(tools, { action: "tools", connectionId: pay, toolkit: "payments", tools: [] });
  await refused(
    t.s.call("integration.search", { connectionId: pay }, bob),
    "forbidden",
    "/input/connectionId",
    /revoked/,
  );
});
