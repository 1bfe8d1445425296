/**
 * key.list through the gateway: tenant isolation, the admin view and its filter, revoked keys only
 * on request, pagination with an opaque cursor, event trails on request, and lastUsed kept from the
 * gateways' batched usage reports.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { startKeysStack, type IssuedKey, type KeysTestStack } from "../testing.ts";

const t: KeysTestStack = await startKeysStack();
after(async () => t.stop());
const acme: IssuedKey = await t.issue({ name: "acme manager", tenant: "acme", scopes: ["key.*"] });
const globex: IssuedKey = await t.issue({ name: "globex manager", tenant: "globex", scopes: ["key.*"] });
const acmeIds: string[] = [acme.id];
for (let i = 0; i < 4; i++)
  acmeIds.push((await t.issue({ name: `acme ${i}`, tenant: "acme", scopes: ["key.inspect"] })).id);

type Row = { id: string; tenant: string; status: string; [k: string]: unknown };

async function listAll(key: string, input: Record<string, unknown> = {}): Promise<Row[]> {
  const out: Row[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const res = await t.call("key.list", { input: { ...input, ...(cursor ? { cursor } : {}) } }, key).expect(200);
    out.push(...res.body.result.keys);
    cursor = res.body.result.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return out;
}

test("rows carry the spec's fields and never a secret or its hash", async () => {
  const res = await t.call("key.list", { input: {} }, acme.key).expect(200);
  const row = res.body.result.keys.find((r: Row) => r.id === acme.id);
  for (const f of ["id", "tenant", "name", "prefix", "status", "scopes", "created", "lastUsed", "expires"])
    assert.ok(f in row, f);
  assert.equal(row.status, "active");
  assert.equal(row.prefix, acme.prefix);
  const text = JSON.stringify(res.body);
  assert.ok(!text.includes(acme.key.slice(11)));
  assert.ok(!/secret|hash/i.test(Object.keys(row).join(",")));
});

test("a tenant key sees only its own tenant, and its tenant filter is ignored", async () => {
  const rows = await listAll(acme.key);
  assert.deepEqual([...new Set(rows.map((r) => r.tenant))], ["acme"]);
  assert.deepEqual(rows.map((r) => r.id).sort(), [...acmeIds].sort());
  const filtered = await listAll(acme.key, { tenant: "globex" });
  assert.deepEqual([...new Set(filtered.map((r) => r.tenant))], ["acme"]);
  const other = await listAll(globex.key);
  assert.deepEqual(
    other.map((r) => r.id),
    [globex.id],
  );
  const res = await t.call("key.list", { input: {} }, acme.key).expect(200);
  assert.ok(!("legacyRequests" in res.body.result), "only admins see the legacy count");
});

test("an admin key sees every tenant, optionally filtered, plus the legacy count", async () => {
  const all = await listAll(t.adminKey);
  assert.deepEqual([...new Set(all.map((r) => r.tenant))].sort(), ["acme", "globex", "platform"]);
  const onlyGlobex = await listAll(t.adminKey, { tenant: "globex" });
  assert.deepEqual(
    onlyGlobex.map((r) => r.id),
    [globex.id],
  );
  const res = await t.call("key.list", { input: {} }).expect(200);
  assert.equal(res.body.result.legacyRequests, 0);
  assert.deepEqual(res.body.result.legacyKeys, []);
});

test("pagination: newest first, every key exactly once, opaque cursor, bad cursor is a 400", async () => {
  const pages: Row[][] = [];
  let cursor: string | undefined;
  do {
    const res = await t.call("key.list", { input: { limit: 2, ...(cursor ? { cursor } : {}) } }, acme.key).expect(200);
    pages.push(res.body.result.keys);
    cursor = res.body.result.nextCursor ?? undefined;
    if (cursor) assert.doesNotMatch(cursor, /key_|acme/, "the cursor is opaque");
  } while (cursor);
  assert.deepEqual(
    pages.map((p) => p.length),
    [2, 2, 1],
  );
  const rows = pages.flat();
  assert.deepEqual(rows.map((r) => r.id).sort(), [...acmeIds].sort(), "no duplicates, none missing");
  const order = (a: Row, b: Row) =>
    Date.parse(b.created as string) - Date.parse(a.created as string) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
  assert.deepEqual(
    rows.map((r) => r.id),
    [...rows].sort(order).map((r) => r.id),
    "newest first (id breaks ties)",
  );
  // The kit's one cursor refusal: 400 validation_failed, detail code invalid_cursor.
  const bad = await t.call("key.list", { input: { cursor: "not-a-cursor" } }, acme.key).expect(400);
  assert.equal(bad.body.code, "validation_failed");
  assert.equal(bad.body.details[0].code, "invalid_cursor");
  assert.equal(bad.body.details[0].path, "/input/cursor");
});

test("revoked keys only with includeRevoked; includeEvents adds each key's trail", async () => {
  const victim = acmeIds[1];
  await t.call("key.revoke", { input: { id: victim, reason: "no longer used" } }, acme.key).expect(200);
  const active = await listAll(acme.key);
  assert.ok(!active.some((r) => r.id === victim));
  const withRevoked = await listAll(acme.key, { includeRevoked: true });
  const row = withRevoked.find((r) => r.id === victim)!;
  assert.equal(row.status, "revoked");
  assert.ok(row.revoked);
  assert.equal(row.events, undefined, "events only on request");
  const withEvents = await listAll(acme.key, { includeRevoked: true, includeEvents: true });
  const trail = withEvents.find((r) => r.id === victim)!.events as Array<{
    kind: string;
    reason: string | null;
    actorKeyId: string;
  }>;
  assert.deepEqual(
    trail.map((e) => e.kind),
    ["issued", "revoked"],
  );
  assert.equal(trail[1].reason, "no longer used");
  assert.equal(trail[1].actorKeyId, acme.id);
});

test("lastUsed is kept from batched usage reports (no write per request)", async () => {
  const k = await t.issue({ name: "used", tenant: "acme", scopes: ["key.inspect"] });
  const before = (await listAll(acme.key)).find((r) => r.id === k.id)!;
  assert.equal(before.lastUsed, null);
  const at = Date.now();
  for (let i = 0; i < 3; i++) await t.call("key.inspect", { input: {} }, k.key).expect(200);
  // The gateway reports every 5 s.
  const row = await eventually(
    async () => (await listAll(acme.key)).find((r) => r.id === k.id && r.lastUsed),
    20_000,
    250,
  );
  assert.ok(Math.abs(Date.parse(row.lastUsed as string) - at) < 10_000);
  const inspect = await t.call("key.inspect", { input: {} }, k.key).expect(200);
  assert.equal(inspect.body.result.lastUsed, row.lastUsed);
});
