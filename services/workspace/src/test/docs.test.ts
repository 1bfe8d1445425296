/**
 * Workspace docs through the gateway: create/read/list, patch with optimistic concurrency (content
 * or anchored ops), comments with anchors, close (read-only afterwards), isolation.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fails, ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "./helpers.ts";

let t: TestStack;
let k: Keys;

before(async () => {
  t = await startWorkspaceStack();
  k = await tenantKeys(t);
});
after(async () => t?.stop());

const CONTENT = "# Booking launch\n\n- Live before 1 June\n- Deposits via payment.initiate\n";

describe("create, read, list", () => {
  test("create returns version 1, open; read returns content and comments", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Launch notes", content: CONTENT }, k.acme);
    assert.match(d.id, /^doc_/);
    assert.equal(d.version, 1);
    assert.equal(d.status, "open");
    assert.equal(d.content, CONTENT);
    assert.deepEqual(d.comments, []);
    const r = await ok(t, "workspace.doc.read", { id: d.id }, k.acme);
    assert.deepEqual(r, d);
    const empty = await ok(t, "workspace.doc.create", { title: "Empty" }, k.acme);
    assert.equal(empty.content, "");
  });

  test("list by status and query (title or content), without content", async () => {
    const a = await ok(t, "workspace.doc.create", { title: "Zanzibar plan", content: "nothing" }, k.beta);
    const b = await ok(t, "workspace.doc.create", { title: "Other", content: "mentions ZANZIBAR here" }, k.beta);
    await ok(t, "workspace.doc.close", { id: a.id }, k.beta);
    const all = await ok(t, "workspace.doc.list", { query: "zanzibar" }, k.beta);
    assert.deepEqual(
      all.items.map((x: { id: string }) => x.id),
      [b.id, a.id],
    );
    assert.equal(all.items[0].content, undefined);
    assert.equal(all.items[0].length, "mentions ZANZIBAR here".length);
    assert.deepEqual(
      (await ok(t, "workspace.doc.list", { query: "zanzibar", status: "closed" }, k.beta)).items.map(
        (x: { id: string }) => x.id,
      ),
      [a.id],
    );
    assert.deepEqual((await ok(t, "workspace.doc.list", { query: "zanzibar" }, k.acme)).items, []);
  });

  test("idempotent create", async () => {
    const a = await ok(t, "workspace.doc.create", { title: "Once", idempotencyKey: "doc-once" }, k.acme);
    const b = await ok(t, "workspace.doc.create", { title: "Once", idempotencyKey: "doc-once" }, k.acme);
    assert.equal(a.id, b.id);
    await fails(t, "workspace.doc.create", { title: "Twice", idempotencyKey: "doc-once" }, k.acme, 409);
  });
});

describe("patch", () => {
  test("replace content and anchored ops bump the version", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Patchable", content: CONTENT }, k.acme);
    const p1 = await ok(
      t,
      "workspace.doc.patch",
      {
        id: d.id,
        baseVersion: 1,
        ops: [
          { op: "replace", find: "Live before 1 June", text: "Live before 15 June" },
          { op: "insert_after", find: "# Booking launch\n", text: "\nOwner: Ada\n" },
          { op: "append", text: "- Reminders via workflow.trigger\n" },
        ],
      },
      k.acme,
    );
    assert.equal(p1.version, 2);
    assert.equal(
      p1.content,
      "# Booking launch\n\nOwner: Ada\n\n- Live before 15 June\n- Deposits via payment.initiate\n- Reminders via workflow.trigger\n",
    );
    const p2 = await ok(t, "workspace.doc.patch", { id: d.id, baseVersion: 2, content: "" }, k.acme);
    assert.equal(p2.version, 3);
    assert.equal(p2.content, "");
  });

  test("a stale baseVersion is 409 with the current version", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Stale", content: "a" }, k.acme);
    await ok(t, "workspace.doc.patch", { id: d.id, baseVersion: 1, content: "b" }, k.acme);
    const e = await fails(t, "workspace.doc.patch", { id: d.id, baseVersion: 1, content: "c" }, k.acme, 409);
    assert.equal(e.code, "conflict");
    assert.equal(e.details[0].path, "/input/baseVersion");
    assert.equal(e.details[0].code, "version_conflict");
    assert.equal(e.details[0].currentVersion, 2);
    assert.match(e.error, /version 2/);
    assert.equal((await ok(t, "workspace.doc.read", { id: d.id }, k.acme)).content, "b");
  });

  test("concurrent patches on the same version: exactly one wins, the others get 409", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Race", content: "start" }, k.acme);
    const rs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.call("workspace.doc.patch", { input: { id: d.id, baseVersion: 1, content: `writer ${i}` } }, k.acme),
      ),
    );
    const statuses = rs.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409]);
    const winner = rs.find((r) => r.status === 200)!.body.result;
    const now = await ok(t, "workspace.doc.read", { id: d.id }, k.acme);
    assert.equal(now.version, 2);
    assert.equal(now.content, winner.content);
  });

  test("missing or ambiguous anchors are 400 naming the op; both content and ops is 400", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Anchors", content: "x y x" }, k.acme);
    const a = await fails(
      t,
      "workspace.doc.patch",
      {
        id: d.id,
        baseVersion: 1,
        ops: [
          { op: "append", text: "!" },
          { op: "replace", find: "zzz", text: "q" },
        ],
      },
      k.acme,
      400,
    );
    assert.equal(a.details[0].path, "/input/ops/1/find");
    assert.equal(a.details[0].code, "anchor_not_found");
    const b = await fails(
      t,
      "workspace.doc.patch",
      { id: d.id, baseVersion: 1, ops: [{ op: "replace", find: "x", text: "q" }] },
      k.acme,
      400,
    );
    assert.equal(b.details[0].code, "anchor_ambiguous");
    await fails(
      t,
      "workspace.doc.patch",
      { id: d.id, baseVersion: 1, content: "a", ops: [{ op: "append", text: "b" }] },
      k.acme,
      400,
    );
    assert.equal((await ok(t, "workspace.doc.read", { id: d.id }, k.acme)).version, 1);
  });
});

describe("comments and close", () => {
  test("comments (anchored on a real passage) appear on read; a bad anchor is 400", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Commented", content: CONTENT }, k.acme);
    const c1 = await ok(
      t,
      "workspace.doc.comment",
      { id: d.id, text: "Can we commit to this date?", anchor: "Live before 1 June" },
      k.acme,
    );
    assert.match(c1.id, /^cmt_/);
    assert.equal(c1.version, 1);
    const c2 = await ok(t, "workspace.doc.comment", { id: d.id, text: "General remark" }, k.acme);
    const e = await fails(t, "workspace.doc.comment", { id: d.id, text: "?", anchor: "not in the doc" }, k.acme, 400);
    assert.equal(e.details[0].path, "/input/anchor");
    const r = await ok(t, "workspace.doc.read", { id: d.id }, k.acme);
    assert.deepEqual(
      r.comments.map((c: { id: string }) => c.id),
      [c1.id, c2.id],
    );
    assert.equal(r.comments[0].anchor, "Live before 1 June");
  });

  test("close makes the doc read-only: patch and comment are 409; close again is harmless", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Closing", content: "final" }, k.acme);
    const closed = await ok(t, "workspace.doc.close", { id: d.id }, k.acme);
    assert.equal(closed.status, "closed");
    assert.ok(closed.closed);
    const p = await fails(t, "workspace.doc.patch", { id: d.id, baseVersion: 1, content: "changed" }, k.acme, 409);
    assert.equal(p.details[0].code, "doc_closed");
    const c = await fails(t, "workspace.doc.comment", { id: d.id, text: "late" }, k.acme, 409);
    assert.equal(c.details[0].code, "doc_closed");
    const again = await ok(t, "workspace.doc.close", { id: d.id }, k.acme);
    assert.equal(again.closed, closed.closed);
    assert.equal((await ok(t, "workspace.doc.read", { id: d.id }, k.acme)).content, "final");
  });

  test("other tenants and sub-tenants can neither read, patch, comment nor close", async () => {
    const d = await ok(t, "workspace.doc.create", { title: "Private", content: "acme only" }, k.acme);
    for (const [key, ctx] of [
      [k.beta, undefined],
      [k.shop1, undefined],
      [k.acmeParent, { tenantId: "shop1" }],
    ] as const) {
      await fails(t, "workspace.doc.read", { id: d.id }, key, 404, ctx);
      await fails(t, "workspace.doc.patch", { id: d.id, baseVersion: 1, content: "pwned" }, key, 404, ctx);
      await fails(t, "workspace.doc.comment", { id: d.id, text: "hi" }, key, 404, ctx);
      await fails(t, "workspace.doc.close", { id: d.id }, key, 404, ctx);
    }
    const r = await ok(t, "workspace.doc.read", { id: d.id }, k.acme);
    assert.equal(r.status, "open");
    assert.equal(r.content, "acme only");
    assert.deepEqual(r.comments, []);
  });
});
