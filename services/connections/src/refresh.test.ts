/**
 * Token refresh without races, against a real authorization server that rotates refresh tokens on
 * every use and, like strict providers, revokes the whole grant when a rotated-away refresh token is
 * used again. A second replica of the service runs on the same database, so "one refresh at a time"
 * is proven across processes (the row lock), not only inside one (the single-flight table).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { type RunningService, runService } from "@gantry/kit";
import type { Context } from "./context.ts";
import { openTokens } from "./credentials.ts";
import type { Connection } from "./db.ts";
import service from "./service.ts";
import { CLIENT_ID, CLIENT_SECRET } from "./test/auth-server.ts";
import { type ConnectionsTest, startConnections, until } from "./test/helpers.ts";

let t: ConnectionsTest;
const replicas: RunningService<Context, never>[] = [];

/** Access tokens live 10 minutes; they are due for refresh in their last 5 (CONNECTIONS_REFRESH_AHEAD_SECONDS). */
const TTL_S = 600;
const PAST_DUE_MS = (TTL_S / 2 + 10) * 1000;

before(async () => {
  t = await startConnections({ authServer: { accessTokenTtl: TTL_S } });
});
after(async () => {
  for (const r of replicas) await r.stop();
  await t?.stop();
});

/** Another instance of the service on the same database, NATS and clock. */
async function replica(env: Record<string, string> = {}): Promise<RunningService<Context, never>> {
  const r = (await runService(service, {
    ...process.env,
    ...t.s.env,
    ...t.env,
    GRPC_PORT: "0",
    GRPC_HOST: "127.0.0.1",
    LOG_LEVEL: "warn",
    ...env,
  })) as unknown as RunningService<Context, never>;
  replicas.push(r);
  return r;
}

async function row(id: string): Promise<Connection> {
  const { rows } = await t.s.db.query(
    `SELECT id, tenant, status, status_reason AS "statusReason", access_token_enc AS "accessTokenEnc",
            refresh_token_enc AS "refreshTokenEnc", data_key_enc AS "dataKeyEnc", key_version AS "keyVersion",
            version, last_refreshed_at AS "lastRefreshedAt"
       FROM connections.connections WHERE id = $1`,
    [id],
  );
  return rows[0] as Connection;
}

async function events(id: string, type: string): Promise<number> {
  const { rows } = await t.s.db.query(
    "SELECT count(*)::int AS n FROM connections.connection_events WHERE connection_id = $1 AND type = $2",
    [id, type],
  );
  return rows[0].n;
}

const refreshes = () => t.auth.grants.refresh_token ?? 0;

test("a use once the token is due refreshes it once, and the rotated refresh token is what is stored", async () => {
  const { completed } = await t.connect("payments", { tenant: "r1" });
  const id = completed.connection.id;
  const first = await t.resolve("r1", "payments");
  const storedBefore = openTokens(t.s.ctx, await row(id));
  const before = refreshes();

  // Not due yet: the same token, no refresh.
  assert.equal((await t.resolve("r1", "payments")).access_token, first.access_token);
  assert.equal(refreshes(), before);

  t.advanceClock(PAST_DUE_MS);
  const second = await t.resolve("r1", "payments");
  assert.notEqual(second.access_token, first.access_token);
  assert.equal(refreshes(), before + 1);
  assert.equal(await t.auth.userinfo(second.access_token), 200);
  assert.ok(second.expires_at_ms > first.expires_at_ms);
  const storedAfter = openTokens(t.s.ctx, await row(id));
  assert.equal(storedAfter?.access, second.access_token);
  assert.ok(
    storedAfter?.refresh && storedAfter.refresh !== storedBefore?.refresh,
    "the rotated refresh token is stored",
  );

  // Fresh again: no second refresh.
  assert.equal((await t.resolve("r1", "payments")).access_token, second.access_token);
  assert.equal(refreshes(), before + 1);
  const got = await t.s.call("connection.get", { service: "payments" }, { tenant: "r1" });
  assert.ok(got.connection.lastRefreshed);
  assert.ok(got.connection.lastUsed);
  const msg = await until(() => t.messages.find((m) => m.event === "refreshed" && m.connectionId === id));
  assert.equal(msg.detail.trigger, "use");
  assert.equal(msg.detail.rotated, true);
});

test("50 concurrent uses on two replicas refresh once, all get the new token, and no token is lost", async () => {
  const other = await replica();
  const { completed } = await t.connect("payments", { tenant: "race-co" });
  const id = completed.connection.id;
  const old = await t.resolve("race-co", "payments");
  const before = refreshes();
  const errorsBefore = t.auth.grantErrors.invalid_grant ?? 0;
  const revokedBefore = t.auth.revokedGrants;

  t.advanceClock(PAST_DUE_MS);
  const burst = await Promise.all(
    Array.from({ length: 50 }, (_, i) => t.resolve("race-co", "payments", i % 2 ? other.port : t.port)),
  );
  const tokens = new Set(burst.map((r) => r.access_token));
  assert.equal(tokens.size, 1, "every use got the same, new token");
  assert.ok(!tokens.has(old.access_token));
  assert.equal(refreshes(), before + 1, "the provider saw exactly one refresh");
  assert.equal(t.auth.grantErrors.invalid_grant ?? 0, errorsBefore, "no refresh token was used twice");
  assert.equal(t.auth.revokedGrants, revokedBefore, "the provider revoked nothing");
  assert.equal(await events(id, "refreshed"), 1);
  const [token] = tokens;
  assert.equal(await t.auth.userinfo(token), 200);

  // No lost token: the refresh token stored by the burst's refresh works for the next one.
  t.advanceClock(PAST_DUE_MS);
  const next = await t.resolve("race-co", "payments", other.port);
  assert.notEqual(next.access_token, token);
  assert.equal(refreshes(), before + 2);
  assert.equal(await t.auth.userinfo(next.access_token), 200);
  assert.equal((await row(id)).status, "connected");
});

test("invalid_grant moves the connection to needs_reauth, announced, and consent again reconnects the same connection", async () => {
  const { completed } = await t.connect("payments", { tenant: "reauth-co" });
  const id = completed.connection.id;
  // Someone else uses the stored refresh token (it leaked, or another client shares the grant): it rotates away.
  const stolen = openTokens(t.s.ctx, await row(id))?.refresh as string;
  const res = await fetch(`${t.auth.issuer}/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: stolen }),
  });
  assert.equal(res.status, 200);

  t.advanceClock(PAST_DUE_MS);
  await assert.rejects(t.resolve("reauth-co", "payments"), (err: any) => {
    assert.equal(err.code, "not_found");
    assert.match(err.message, /needs_reauth/);
    return true;
  });
  const stored = await row(id);
  assert.equal(stored.status, "needs_reauth");
  assert.match(stored.statusReason ?? "", /^invalid_grant/);
  assert.equal(stored.accessTokenEnc, null, "dead tokens are dropped");
  const got = await t.s.call("connection.get", { service: "payments" }, { tenant: "reauth-co" });
  assert.equal(got.connection.status, "needs_reauth");
  assert.equal(got.credentialSource, "none");
  const msg = await until(() => t.messages.find((m) => m.event === "needs_reauth" && m.connectionId === id));
  assert.match(String(msg.detail.reason), /invalid_grant/);

  const again = await t.connect("payments", { tenant: "reauth-co" });
  assert.equal(again.started.connection.id, id, "consent again reuses the connection");
  assert.equal(again.completed.connection.status, "connected");
  assert.equal((await t.resolve("reauth-co", "payments")).credential_source, "tenant");
});

test("the sweep refreshes tokens ahead of expiry without any use", async () => {
  const { completed } = await t.connect("payments", { tenant: "sweep-co" });
  const id = completed.connection.id;
  const before = (await row(id)).version;
  await replica({ CONNECTIONS_REFRESH_SWEEP_SECONDS: "1" });
  t.advanceClock(PAST_DUE_MS);
  const msg = await until(
    () => t.messages.find((m) => m.event === "refreshed" && m.connectionId === id && m.detail.trigger === "sweep"),
    10_000,
  );
  assert.ok(msg.version > before);
  const stored = await row(id);
  assert.ok(stored.lastRefreshedAt);
  assert.equal(await events(id, "refreshed"), 1);
});

test("a provider that is down changes nothing: the still-valid token is used, an expired one is a 502", async () => {
  const { completed } = await t.connect("payments", { tenant: "outage-co" });
  const id = completed.connection.id;
  const current = await t.resolve("outage-co", "payments");
  await t.auth.stop();
  t.advanceClock(PAST_DUE_MS);
  const during = await t.resolve("outage-co", "payments");
  assert.equal(during.access_token, current.access_token, "due but still valid: used as is");
  t.advanceClock(TTL_S * 1000);
  await assert.rejects(t.resolve("outage-co", "payments"), (err: any) => {
    assert.ok(["upstream_failed", "timeout"].includes(err.code), err.code);
    return true;
  });
  const stored = await row(id);
  assert.equal(stored.status, "connected", "an unreachable provider does not flip the connection");
  assert.equal(openTokens(t.s.ctx, stored)?.access, current.access_token);
});
