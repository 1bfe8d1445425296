/**
 * The ends of consent: consent given again on a connected account replaces its grant (the old tokens
 * are revoked at the provider: they stop working there), and consents nobody finishes are cleaned up
 * by the sweep (the pending connection becomes revoked, announced; expired session rows go).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { asSystem, withTenant } from "@gantry/kit";
import { openTokens } from "../credentials.ts";
import { SESSION_RETENTION_MS, sweepAbandoned } from "../sessions.ts";
import { type ConnectionsTest, startConnections, until } from "./helpers.ts";

let t: ConnectionsTest;
before(async () => {
  t = await startConnections({
    providers: (auth) => ({ payments: auth.providerConfig(), crm: auth.providerConfig() }),
  });
});
after(async () => t?.stop());

const caller = { tenant: "lifecycle-co", keyId: "key_owner" };

async function accessToken(id: string): Promise<string> {
  return withTenant(caller.tenant, async () => {
    const row = await t.s.ctx.db.connection.findFirstOrThrow({ where: { id } });
    return openTokens(t.s.ctx, row)?.access as string;
  });
}

test("consent again on a connected account revokes the old grant at the provider", async () => {
  const first = await t.connect("payments", caller);
  const id = first.completed.connection.id;
  const oldToken = await accessToken(id);
  assert.equal(await t.auth.userinfo(oldToken), 200);
  const revokedBefore = t.auth.revokedGrants;

  const second = await t.connect("payments", caller);
  assert.equal(second.completed.connection.id, id, "the same connection is reconnected");
  const newToken = await accessToken(id);
  assert.notEqual(newToken, oldToken);
  assert.equal(await t.auth.userinfo(oldToken), 401, "the replaced grant still works at the provider");
  assert.equal(await t.auth.userinfo(newToken), 200);
  assert.ok(t.auth.revokedGrants > revokedBefore);
  const { rows } = await t.s.db.query(
    "SELECT detail FROM connections.connection_events WHERE connection_id = $1 AND type = 'connected' ORDER BY id",
    [id],
  );
  assert.equal(rows.length, 2);
  assert.equal(rows[0].detail.previousGrantRevoked, undefined);
  assert.equal(rows[1].detail.previousGrantRevoked, true);
});

test("the sweep revokes pending connections whose consent expired and deletes old session rows", async () => {
  const abandoned = await t.s.call("connection.authorize", { service: "crm" }, caller);
  const id = abandoned.connection.id;
  // Still within the session's lifetime: untouched.
  assert.deepEqual(await asSystem(() => sweepAbandoned(t.s.ctx)), { revoked: 0, deleted: 0 });
  // A connected account with an abandoned re-consent is not pending: untouched too.
  await t.s.call("connection.authorize", { service: "payments" }, caller);

  t.advanceClock(t.s.ctx.config.CONNECTIONS_SESSION_TTL_SECONDS * 1000 + 1_000);
  const round = await asSystem(() => sweepAbandoned(t.s.ctx));
  assert.equal(round.revoked, 1);
  const got = await t.s.call("connection.list", { service: "crm" }, caller);
  assert.equal(got.items[0].id, id);
  assert.equal(got.items[0].status, "revoked");
  const payments = await t.s.call("connection.get", { service: "payments" }, caller);
  assert.equal(payments.connection.status, "connected");
  const message = await until(() => t.messages.find((m) => m.connectionId === id && m.event === "revoked"));
  assert.match(String(message.detail.reason), /consent not completed/);
  // complete after the sweep: the session is closed.
  await assert.rejects(
    t.s.call(
      "connection.authorize",
      {
        action: "complete",
        connectionId: id,
        state: abandoned.state,
        sessionUri: "http://127.0.0.1:1/oauth/callback?code=x",
      },
      caller,
    ),
    (err: any) => err.details?.[0]?.path === "/input/state",
  );
  // A day later the expired session rows are gone.
  t.advanceClock(SESSION_RETENTION_MS);
  const later = await asSystem(() => sweepAbandoned(t.s.ctx));
  assert.ok(later.deleted >= 2);
  const { rows } = await t.s.db.query(
    "SELECT count(*)::int AS n FROM connections.oauth_sessions WHERE connection_id = $1",
    [id],
  );
  assert.equal(rows[0].n, 0);
});
