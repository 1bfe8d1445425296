/**
 * key.rotate and expiry through the gateway, with the shared test clock (kit/src/clock.ts) instead
 * of sleeps: the old key works through the overlap with Deprecation/Sunset headers and is refused
 * after it; expired keys are 401 and their expiry lands in the trail; two concurrent rotations
 * yield one successor; a tenant key cannot rotate its way to a wider key.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { decodeJson, natsConnectOptions } from "@gantry/kit";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { assertNoSecretsInLogs, startKeysStack, type IssuedKey, type KeysTestStack } from "../testing.ts";

const HOUR = 3_600_000;
// A fast sweep so the periodic recorder is exercised too (the lazy one needs no wait).
const t: KeysTestStack = await startKeysStack({ env: { KEY_EXPIRY_SWEEP_SECONDS: "1" } });
after(async () => t.stop());
const acme: IssuedKey = await t.issue({ name: "acme manager", tenant: "acme", scopes: ["*"] });

async function rotate(id: string, overlapHours?: number, key = acme.key) {
  const res = await t.call(
    "key.rotate",
    { input: { id, ...(overlapHours === undefined ? {} : { overlapHours }) } },
    key,
  );
  if (res.status === 200) t.secrets.add(res.body.result.key);
  return res;
}

async function row(id: string, key = t.adminKey) {
  const res = await t
    .call("key.list", { input: { includeRevoked: true, includeEvents: true, limit: 100 } }, key)
    .expect(200);
  return res.body.result.keys.find((r: { id: string }) => r.id === id);
}

test("the successor has the same tenant, name, scopes and other attributes; the raw key is returned once", async () => {
  const old = await t.issue({
    name: "worker",
    tenant: "acme",
    scopes: ["gantry.about", "contact.*"],
    collections: ["support"],
    products: ["shop"],
    subTenants: true,
    rateLimit: { limit: 77, windowSeconds: 60 },
    expiresInHours: 1000,
  });
  const res = await rotate(old.id, 48, t.adminKey);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const s = res.body.result;
  assert.notEqual(s.id, old.id);
  assert.notEqual(s.key, old.key);
  assert.equal(s.prefix, s.key.slice(0, 11));
  for (const f of [
    "tenant",
    "name",
    "scopes",
    "collections",
    "products",
    "subTenants",
    "admin",
    "rateLimit",
    "expires",
  ])
    assert.deepEqual(s[f], old[f], f);
  assert.equal(s.previous.id, old.id);
  assert.ok(Math.abs(Date.parse(s.previous.expires) - Date.parse(s.created) - 48 * HOUR) < 1_000);
  // Rotation cannot extend a key's life: the successor keeps the absolute expiry.
  assert.equal(s.expires, old.expires);
  const inspect = await t.call("key.inspect", { input: {} }, s.key).expect(200);
  assert.equal(inspect.body.result.rotatedFrom, old.id);
  assert.deepEqual(
    inspect.body.result.events.map((e: { kind: string }) => e.kind),
    ["issued"],
  );
  assert.match(inspect.body.result.events[0].reason, new RegExp(old.id));
  // key.list never shows the raw key again.
  const listed = await t.call("key.list", { input: { limit: 100 } }).expect(200);
  assert.ok(!JSON.stringify(listed.body).includes(s.key.slice(11)));
});

test("the old key works through the overlap with Deprecation and Sunset headers, and is refused after it", async () => {
  const old = await t.issue({ name: "overlap", tenant: "acme", scopes: ["gantry.about", "key.inspect"] });
  await t.call("gantry.about", { input: {} }, old.key).expect(200); // cached by the gateway
  const res = await rotate(old.id, 2);
  const s = res.body.result;
  const during = await t.call("gantry.about", { input: {} }, old.key).expect(200);
  assert.match(during.headers.deprecation, /^@\d+$/);
  assert.equal(during.headers.sunset, new Date(s.previous.expires).toUTCString());
  const fresh = await t.call("gantry.about", { input: {} }, s.key).expect(200);
  assert.equal(fresh.headers.sunset, undefined);
  const inspectOld = await t.call("key.inspect", { input: {} }, old.key).expect(200);
  assert.equal(inspectOld.body.result.rotatedTo, s.id);
  assert.equal(inspectOld.body.result.expires, s.previous.expires);
  assert.equal(inspectOld.body.result.status, "active");

  t.advanceClock(HOUR); // still inside the 2 h overlap
  await t.call("gantry.about", { input: {} }, old.key).expect(200);
  t.advanceClock(HOUR + 60_000); // past it
  const after = await t.call("gantry.about", { input: {} }, old.key).expect(401);
  assert.equal(after.body.code, "unauthorized");
  await t.call("gantry.about", { input: {} }, s.key).expect(200);

  const r = await row(old.id);
  assert.equal(r.status, "expired");
  assert.deepEqual(
    r.events.map((e: { kind: string }) => e.kind),
    ["issued", "rotated", "expired"],
  );
  assert.equal(r.events[2].at, s.previous.expires, "expired at the expiry itself, not when noticed");
  assert.match(r.events[1].reason, new RegExp(s.id));
});

test("overlapHours 0 ends the old key at once", async () => {
  const old = await t.issue({ name: "zero", tenant: "acme", scopes: ["gantry.about"] });
  await t.call("gantry.about", { input: {} }, old.key).expect(200);
  const res = await rotate(old.id, 0);
  assert.equal(res.status, 200);
  await t.call("gantry.about", { input: {} }, old.key).expect(401);
  await t.call("gantry.about", { input: {} }, res.body.result.key).expect(200);
});

test("the default overlap is 24 h", async () => {
  const old = await t.issue({ name: "default", tenant: "acme", scopes: ["gantry.about"] });
  const s = (await rotate(old.id)).body.result;
  assert.ok(Math.abs(Date.parse(s.previous.expires) - Date.parse(s.created) - 24 * HOUR) < 1_000);
});

test("two concurrent rotations of one key yield one successor", async () => {
  const old = await t.issue({ name: "raced", tenant: "acme", scopes: ["gantry.about"] });
  const results = await Promise.all([rotate(old.id), rotate(old.id), rotate(old.id, 1, t.adminKey), rotate(old.id, 5)]);
  const ok = results.filter((r) => r.status === 200);
  const conflicts = results.filter((r) => r.status === 409);
  assert.equal(ok.length, 1, results.map((r) => r.status).join(","));
  assert.equal(conflicts.length, 3);
  for (const c of conflicts) {
    assert.equal(c.body.details[0].code, "already_rotated");
    assert.equal(c.body.details[0].successorId, ok[0].body.result.id);
  }
  const { rows } = await t.db.query(
    `SELECT id, rotated_to FROM keys.api_keys WHERE name = 'raced' ORDER BY created_at`,
  );
  assert.equal(rows.length, 2, "the old key and exactly one successor");
  assert.equal(rows[0].rotated_to, rows[1].id);
  const { rows: events } = await t.db.query(`SELECT kind FROM keys.key_events WHERE key_id = $1 ORDER BY id`, [old.id]);
  assert.deepEqual(
    events.map((e) => e.kind),
    ["issued", "rotated"],
  );
  // Rotating the successor rolls again.
  assert.equal((await rotate(ok[0].body.result.id)).status, 200);
});

test("revoked and expired keys cannot be rotated (409 with a code)", async () => {
  const revoked = await t.issue({ name: "gone", tenant: "acme", scopes: ["gantry.about"] });
  await t.call("key.revoke", { input: { id: revoked.id } }, acme.key).expect(200);
  const a = await rotate(revoked.id);
  assert.equal(a.status, 409);
  assert.equal(a.body.details[0].code, "key_revoked");
  const expiring = await t.issue({ name: "short-lived", tenant: "acme", scopes: ["gantry.about"], expiresInHours: 1 });
  t.advanceClock(2 * HOUR);
  const b = await rotate(expiring.id);
  assert.equal(b.status, 409);
  assert.equal(b.body.details[0].code, "key_expired");
});

test("a tenant key cannot rotate a wider key of its tenant (the successor would exceed it)", async () => {
  const wide = await t.issue({ name: "wide", tenant: "acme", scopes: ["*"], admin: false, collections: ["all"] });
  const narrow = await t.issue({ name: "narrow", tenant: "acme", scopes: ["key.rotate", "gantry.about"] });
  const res = await rotate(wide.id, 24, narrow.key);
  assert.equal(res.status, 403);
  assert.ok(
    res.body.details.some(
      (d: { code: string; field: string; message: string }) =>
        d.code === "exceeds_caller" && d.field === "scopes" && /"\*"/.test(d.message),
    ),
  );
  assert.ok(res.body.details.some((d: { field: string }) => d.field === "collections"));
  // It may rotate itself.
  assert.equal((await rotate(narrow.id, 1, narrow.key)).status, 200);
  // Admin keys may rotate anything.
  assert.equal((await rotate(wide.id, 1, t.adminKey)).status, 200);
});

test("expired keys are refused with 401 and their expiry is recorded in the trail", async () => {
  const k = await t.issue({
    name: "expiring",
    tenant: "acme",
    scopes: ["gantry.about", "key.inspect"],
    expiresInHours: 3,
  });
  const inspect = await t.call("key.inspect", { input: {} }, k.key).expect(200);
  assert.equal(inspect.body.result.expires, k.expires);
  t.advanceClock(3 * HOUR - 60_000);
  await t.call("gantry.about", { input: {} }, k.key).expect(200);
  t.advanceClock(120_000);
  const res = await t.call("gantry.about", { input: {} }, k.key).expect(401);
  assert.equal(res.body.code, "unauthorized");
  await t.call("key.inspect", { input: {} }, k.key).expect(401);
  const r = await row(k.id, acme.key);
  assert.equal(r.status, "expired");
  assert.deepEqual(
    r.events.map((e: { kind: string }) => e.kind),
    ["issued", "expired"],
  );
  assert.equal(r.events[1].at, k.expires);
  assert.equal(r.events[1].reason, "expiry reached");
  // Recorded once, however many times it is noticed.
  await t.call("gantry.about", { input: {} }, k.key).expect(401);
  await row(k.id);
  const { rows } = await t.db.query(
    `SELECT count(*)::int AS n FROM keys.key_events WHERE key_id = $1 AND kind = 'expired'`,
    [k.id],
  );
  assert.equal(rows[0].n, 1);
});

test("the periodic sweep records an expiry nobody looked at and announces it on keys.key.expired", async () => {
  const nc = await connect(natsConnectOptions(t.stack.env.NATS_URL));
  try {
    const seen: string[] = [];
    nc.subscribe("keys.key.expired", {
      callback: (_err, msg) => void seen.push(decodeJson<{ keyId: string }>(msg.data).keyId),
    });
    await nc.flush();
    const k = await t.issue({ name: "unwatched", tenant: "acme", scopes: ["gantry.about"], expiresInHours: 1 });
    t.advanceClock(2 * HOUR);
    // No call touches the key: only the sweep (every second here) can record it.
    await eventually(async () => seen.includes(k.id), 15_000, 100);
    const { rows } = await t.db.query(`SELECT kind, at FROM keys.key_events WHERE key_id = $1 ORDER BY id`, [k.id]);
    assert.deepEqual(
      rows.map((r) => r.kind),
      ["issued", "expired"],
    );
    assert.equal(rows[1].at.toISOString(), k.expires);
  } finally {
    await nc.close();
  }
});

test("no raw secret (issued or rotated) appears in any process's log", () => {
  assert.ok(t.secrets.size > 10);
  assertNoSecretsInLogs(t);
});
