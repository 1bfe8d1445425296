/**
 * Master-key rotation: after `rewrapAll` every stored data key (connections and consent sessions) is
 * under the new version, and the service reads its credentials with the new key alone.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { type ConnectionsConfig, loadMasterKeys } from "./config.ts";
import { rewrapAll } from "./rewrap.ts";
import { type ConnectionsTest, startConnections } from "./test/helpers.ts";

let t: ConnectionsTest;
before(async () => {
  t = await startConnections();
});
after(async () => t?.stop());

test("rewrap moves every data key to the new master key; the old key can then be retired", async () => {
  const { completed } = await t.connect("payments", { tenant: "rotate-co" });
  const pending = await t.s.call("connection.authorize", { service: "payments" }, { tenant: "rotate-pending" });
  const token = (await t.resolve("rotate-co", "payments")).access_token;
  const oldKey = t.s.env.CONNECTIONS_MASTER_KEY;
  assert.ok(oldKey, "the local stack gives the service a master key");
  const newKey = randomBytes(32).toString("base64");
  const config = (env: Partial<ConnectionsConfig>) =>
    ({ NODE_ENV: "production", CONNECTIONS_PREVIOUS_MASTER_KEYS: "{}", ...env }) as ConnectionsConfig;
  const rotating = loadMasterKeys(
    config({
      CONNECTIONS_MASTER_KEY: newKey,
      CONNECTIONS_MASTER_KEY_VERSION: 2,
      CONNECTIONS_PREVIOUS_MASTER_KEYS: JSON.stringify({ 1: oldKey }),
    }),
  );
  const result = await rewrapAll(t.s.db, rotating);
  assert.ok(result.connections >= 1, JSON.stringify(result)); // the pending connection holds no credential yet
  assert.ok(result.sessions >= 2, JSON.stringify(result));
  assert.equal(result.remaining, 0);
  const { rows } = await t.s.db.query(
    "SELECT DISTINCT key_version FROM connections.connections WHERE key_version IS NOT NULL UNION SELECT DISTINCT key_version FROM connections.oauth_sessions",
  );
  assert.deepEqual(
    rows.map((r) => r.key_version),
    [2],
  );
  assert.deepEqual(await rewrapAll(t.s.db, rotating), { connections: 0, sessions: 0, remaining: 0, version: 2 });

  const original = t.s.ctx.keys;
  try {
    // The new key alone reads what was stored under the old one: a token, and a PKCE verifier.
    t.s.ctx.keys = loadMasterKeys(config({ CONNECTIONS_MASTER_KEY: newKey, CONNECTIONS_MASTER_KEY_VERSION: 2 }));
    assert.equal((await t.resolve("rotate-co", "payments")).access_token, token);
    const redirect = await t.auth.consent(pending.authorizationUrl);
    const done = await t.s.call(
      "connection.authorize",
      { action: "complete", connectionId: pending.connection.id, state: pending.state, sessionUri: redirect },
      { tenant: "rotate-pending" },
    );
    assert.equal(done.connection.status, "connected");
    // And the old key alone no longer can.
    t.s.ctx.keys = loadMasterKeys(config({ CONNECTIONS_MASTER_KEY: oldKey }));
    await assert.rejects(t.resolve("rotate-co", "payments"), { code: "internal" });
  } finally {
    t.s.ctx.keys = original;
  }
  assert.ok(completed.connection.id);
});
