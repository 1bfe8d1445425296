/**
 * Audit: one record per call, allowed or refused, persisted by the keys service; a write failure
 * in Postgres delays persistence and loses nothing.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { createHash } from "node:crypto";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
before(async () => {
  // key.list is switched off, so a call gets one hop and the keys service's 501 (the bench's hop).
  t = await startTestStack({ services: ["keys"], env: { GANTRY_DISABLED_ABILITIES: "key.list" } });
});
after(async () => t?.stop());

async function auditRow(requestId: string) {
  const { rows } = await t.db.query("SELECT * FROM keys.audit_records WHERE request_id = $1", [requestId]);
  return rows[0];
}

describe("audit records", () => {
  test("an allowed call is recorded with tenant, key, ability, status, duration and input hash", async () => {
    const { id, key } = await t.insertKey({ tenant: "acme" });
    const res = await t.call("gantry.about", { input: {} }, key).expect(200);
    const row = await eventually(() => auditRow(res.headers["x-request-id"]));
    assert.equal(row.tenant, "acme");
    assert.equal(row.key_id, id);
    assert.equal(row.ability, "gantry.about");
    assert.equal(row.status, 200);
    assert.equal(row.input_hash, createHash("sha256").update("{}").digest("hex"));
    assert.ok(row.duration_ms >= 0);
    assert.ok(row.at instanceof Date);
  });

  test("refused calls are recorded too (401, 403, 400)", async () => {
    const noKey = await request(t.url).post("/v1/abilities/gantry.about").send({ input: {} }).expect(401);
    const { key } = await t.insertKey({ scopes: ["contact.get"] });
    const forbidden = await t.call("lead.list", { input: {} }, key).expect(403);
    const invalid = await t.call("lesson.record", { input: {} }).expect(400);
    const r401 = await eventually(() => auditRow(noKey.headers["x-request-id"]));
    assert.equal(r401.status, 401);
    assert.equal(r401.key_id, null);
    assert.equal((await eventually(() => auditRow(forbidden.headers["x-request-id"]))).status, 403);
    const r400 = await eventually(() => auditRow(invalid.headers["x-request-id"]));
    assert.equal(r400.error_code, "validation_failed");
  });

  test("a 501 from the owner is recorded with its code, at the time of the call", async () => {
    const { key } = await t.insertKey({ tenant: "acme" });
    const before = Date.now();
    const res = await t.call("key.list", { input: {} }, key).expect(501);
    const after = Date.now();
    assert.equal(res.body.code, "not_implemented");
    assert.match(res.body.reason, /\/docs#ability-key\.list/);
    const row = await eventually(() => auditRow(res.headers["x-request-id"]));
    assert.equal(row.status, 501);
    assert.equal(row.error_code, "not_implemented");
    assert.equal(row.ability, "key.list");
    // The record's time is the call's, to the millisecond as written (not a clock check: both are this machine's).
    assert.ok(
      row.at.getTime() >= before - 1 && row.at.getTime() <= after + 1,
      `${row.at.toISOString()} in [${before}, ${after}]`,
    );
  });

  test("no secret is ever written to the audit table", async () => {
    const { key } = await t.insertKey();
    await t.call("gantry.about", { input: { note: key } }, key);
    const { rows } = await t.db.query("SELECT row_to_json(a)::text AS j FROM keys.audit_records a");
    for (const r of rows) assert.ok(!r.j.includes(key));
  });

  test("while Postgres refuses the writes, records wait in JetStream and all arrive afterwards", async () => {
    await t.db.query("ALTER TABLE keys.audit_records RENAME TO audit_records_offline");
    const ids: string[] = [];
    try {
      for (let i = 0; i < 20; i++)
        ids.push((await t.call("gantry.about", { input: { i } }).expect(400)).headers["x-request-id"]);
      await new Promise((r) => setTimeout(r, 1_500));
    } finally {
      await t.db.query("ALTER TABLE keys.audit_records_offline RENAME TO audit_records");
    }
    await eventually(async () => {
      const { rows } = await t.db.query(
        "SELECT count(*)::int AS n FROM keys.audit_records WHERE request_id = ANY($1)",
        [ids],
      );
      return rows[0].n === ids.length;
    }, 20_000);
  });
});
