/**
 * Contacts through the gateway: create/get/list/update, validation (email, E.164 phone), pagination,
 * tenant isolation (incl. sub-tenants), idempotency (sequential and concurrent), scopes. (The schema
 * checks are in ../schema.test.ts, the database-level isolation in isolation.test.ts.)
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { ISO, fails, ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "./helpers.ts";

let t: TestStack;
let k: Keys;

before(async () => {
  t = await startWorkspaceStack();
  k = await tenantKeys(t);
});
after(async () => t?.stop());

describe("contact.create", () => {
  test("creates a contact with a prefixed id, E.164 phone, metadata and timestamps", async () => {
    const c = await ok(
      t,
      "contact.create",
      {
        name: "Ada Obi",
        phone: "+234 (803) 123-4567",
        email: "ada@Northwind.EXAMPLE",
        company: "Northwind",
        metadata: { vip: true, tier: "gold" },
      },
      k.acme,
    );
    assert.match(c.id, /^ctc_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(c.phone, "+2348031234567");
    assert.equal(c.email, "ada@northwind.example");
    assert.equal(c.tenant, "acme");
    assert.deepEqual(c.metadata, { vip: true, tier: "gold" });
    assert.match(c.created, ISO);
    assert.equal(c.created, c.updated);
    const got = await ok(t, "contact.get", { id: c.id }, k.acme);
    assert.deepEqual(got, c);
  });

  test("00 international prefix is normalised; a national number without country code is refused", async () => {
    const c = await ok(t, "contact.create", { name: "Lars", phone: "0046 70 123 45 67" }, k.acme);
    assert.equal(c.phone, "+46701234567");
    const e = await fails(t, "contact.create", { name: "Lars", phone: "070 123 45 67" }, k.acme, 400);
    assert.equal(e.code, "validation_failed");
    assert.equal(e.details[0].path, "/input/phone");
    assert.equal(e.details[0].code, "invalid_phone");
    assert.match(e.error, /country code/);
  });

  test("invalid phone, email, unknown field and missing name are 400 with paths", async () => {
    const a = await fails(t, "contact.create", { name: "X", phone: "+999 1234 5678" }, k.acme, 400);
    assert.equal(a.details[0].path, "/input/phone");
    const b = await fails(t, "contact.create", { name: "X", email: "not-an-email" }, k.acme, 400);
    assert.equal(b.details[0].path, "/input/email");
    const c = await fails(t, "contact.create", { phone: "+44 20 7946 0958", nickname: "x" }, k.acme, 400);
    const paths = c.details.map((d: { path: string }) => d.path).sort();
    assert.deepEqual(paths, ["/input/name", "/input/nickname"]);
    const blank = await fails(t, "contact.create", { name: "   " }, k.acme, 400);
    assert.equal(blank.details[0].code, "blank");
    const d = await fails(t, "contact.create", { name: "X", metadata: { nested: { a: 1 } } }, k.acme, 400);
    assert.ok(d.details.some((x: { path: string }) => x.path.startsWith("/input/metadata")));
  });

  test("idempotency: same key + same input → same contact; different input → 409 naming the fields", async () => {
    const input = { name: "Idem Potent", email: "idem@example.com", idempotencyKey: "signup-1" };
    const first = await ok(t, "contact.create", input, k.acme);
    const again = await ok(
      t,
      "contact.create",
      { email: "idem@example.com", idempotencyKey: "signup-1", name: "Idem Potent" },
      k.acme,
    );
    assert.equal(again.id, first.id);
    const e = await fails(t, "contact.create", { ...input, name: "Someone Else", company: "Other" }, k.acme, 409);
    assert.equal(e.code, "conflict");
    assert.deepEqual(
      e.details.map((d: { path: string }) => d.path),
      ["/input/company", "/input/name"],
    );
    assert.ok(e.details.every((d: { code: string }) => d.code === "idempotency_mismatch"));
    assert.match(e.error, /company, name/);
    // Scoped per tenant: beta may use the same key for its own contact.
    const beta = await ok(t, "contact.create", input, k.beta);
    assert.notEqual(beta.id, first.id);
    const { rows } = await t.db.query(
      `SELECT count(*)::int AS n FROM workspace.contacts WHERE email = 'idem@example.com'`,
    );
    assert.equal(rows[0].n, 2);
  });

  test("idempotency: 12 concurrent duplicates create exactly one contact", async () => {
    const input = { name: "Racer", email: "race@example.com", idempotencyKey: "race-1" };
    const results = await Promise.all(Array.from({ length: 12 }, () => t.call("contact.create", { input }, k.acme)));
    for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
    const ids = new Set(results.map((r) => r.body.result.id));
    assert.equal(ids.size, 1);
    const { rows } = await t.db.query(
      `SELECT count(*)::int AS n FROM workspace.contacts WHERE tenant = 'acme' AND email = 'race@example.com'`,
    );
    assert.equal(rows[0].n, 1);
    assert.doesNotMatch(t.stack.logs(), /ability failed/);
  });
});

describe("Idempotency-Key header (Stripe's convention)", () => {
  const post = (ability: string, input: unknown, key: string, idempotencyKey?: string) => {
    const r = request(t.url).post(`/v1/abilities/${ability}`).set("Authorization", `Bearer ${key}`);
    return (idempotencyKey === undefined ? r : r.set("Idempotency-Key", idempotencyKey)).send({ input });
  };

  test("fills idempotencyKey: a repeated call returns the same contact, marked Idempotent-Replayed", async () => {
    const input = { name: "Header Idem", email: "hdr@example.com" };
    const first = await post("contact.create", input, k.acme, "hdr-1").expect(200);
    assert.equal(first.headers["idempotent-replayed"], undefined, "a first call is not a replay");
    const again = await post("contact.create", input, k.acme, "hdr-1").expect(200);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.equal(again.body.result.id, first.body.result.id);
    assert.deepEqual(again.body.result, first.body.result, "the result body is unchanged by a replay");
    // The header and the field are the same key: the field alone replays the header's call.
    const viaField = await post("contact.create", { ...input, idempotencyKey: "hdr-1" }, k.acme).expect(200);
    assert.equal(viaField.body.result.id, first.body.result.id);
    assert.equal(viaField.headers["idempotent-replayed"], "true");
    const { rows } = await t.db.query(
      `SELECT count(*)::int AS n FROM workspace.contacts WHERE email = 'hdr@example.com'`,
    );
    assert.equal(rows[0].n, 1, "two identical calls with one Idempotency-Key make one contact");
    // Without any key each call creates, and no replay is reported.
    const plain = await post("contact.create", { name: "No Key" }, k.acme).expect(200);
    assert.equal(plain.headers["idempotent-replayed"], undefined);
  });

  test("header and field both given: the same value is fine, different values are 400 naming both", async () => {
    const same = await post("contact.create", { name: "Both", idempotencyKey: "both-1" }, k.acme, "both-1").expect(200);
    assert.ok(same.body.result.id);
    const res = await post("contact.create", { name: "Both", idempotencyKey: "field-1" }, k.acme, "header-1").expect(
      400,
    );
    assert.equal(res.body.code, "invalid_request");
    assert.match(res.body.error, /Idempotency-Key header \("header-1"\)/);
    assert.match(res.body.error, /input\.idempotencyKey \("field-1"\)/);
    assert.equal(res.body.details[0].path, "/input/idempotencyKey");
    assert.equal(res.body.details[0].code, "idempotency_key_mismatch");
  });

  test("an ability without idempotencyKey refuses the header with 400 instead of ignoring it", async () => {
    const res = await post("contact.list", {}, k.acme, "list-1").expect(400);
    assert.equal(res.body.code, "invalid_request");
    assert.match(res.body.error, /contact\.list does not take an idempotency key/);
    assert.equal(res.body.details[0].path, "/headers/idempotency-key");
    assert.equal(res.body.details[0].code, "idempotency_not_supported");
  });

  test("a header value the field's schema refuses is a validation error on /input/idempotencyKey", async () => {
    const res = await post("contact.create", { name: "Long" }, k.acme, "x".repeat(300)).expect(400);
    assert.equal(res.body.code, "validation_failed");
    assert.equal(res.body.details[0].path, "/input/idempotencyKey");
  });
});

describe("contact.update", () => {
  test("partial update: only given fields change, null clears, metadata merges and null removes a key", async () => {
    const c = await ok(
      t,
      "contact.create",
      { name: "Upd", phone: "+44 20 7946 0958", company: "Old Co", metadata: { a: 1, b: "x" } },
      k.acme,
    );
    await new Promise((r) => setTimeout(r, 5));
    const u = await ok(
      t,
      "contact.update",
      { id: c.id, company: null, email: "upd@example.com", metadata: { b: null, c: true } },
      k.acme,
    );
    assert.equal(u.name, "Upd");
    assert.equal(u.phone, "+442079460958");
    assert.equal(u.company, null);
    assert.equal(u.email, "upd@example.com");
    assert.deepEqual(u.metadata, { a: 1, c: true });
    assert.equal(u.created, c.created);
    assert.ok(u.updated > c.updated);
  });

  test("concurrent metadata updates of different keys all survive (row lock)", async () => {
    const c = await ok(t, "contact.create", { name: "Many" }, k.acme);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => ok(t, "contact.update", { id: c.id, metadata: { [`k${i}`]: i } }, k.acme)),
    );
    const got = await ok(t, "contact.get", { id: c.id }, k.acme);
    assert.equal(Object.keys(got.metadata).length, 8);
  });

  test("errors: unknown id 404, nothing to update 400, bad phone 400", async () => {
    await fails(t, "contact.update", { id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q", name: "x" }, k.acme, 404);
    await fails(t, "contact.update", { id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q" }, k.acme, 400);
    const c = await ok(t, "contact.create", { name: "Ph" }, k.acme);
    const e = await fails(t, "contact.update", { id: c.id, phone: "12345" }, k.acme, 400);
    assert.equal(e.details[0].path, "/input/phone");
  });
});

describe("contact.list", () => {
  test("paginates newest first with opaque cursors, no duplicates or gaps", async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push((await ok(t, "contact.create", { name: `Pager ${i}`, company: "Pagination Ltd" }, k.beta)).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ok(
        t,
        "contact.list",
        { query: "pagination", limit: 3, ...(cursor ? { cursor } : {}) },
        k.beta,
      );
      assert.ok(page.items.length <= 3);
      seen.push(...page.items.map((c: { id: string }) => c.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...made].reverse());
  });

  test("query matches name, email, company and phone digits, case-insensitively", async () => {
    const c = await ok(
      t,
      "contact.create",
      { name: "Zebedee Quux", email: "zq@quuxmail.example", company: "Quux Industries", phone: "+1 415 555 0142" },
      k.acme,
    );
    for (const q of ["zebedee", "QUUXMAIL", "industries", "4155550142", "415 555 0142"]) {
      const page = await ok(t, "contact.list", { query: q }, k.acme);
      assert.ok(
        page.items.some((x: { id: string }) => x.id === c.id),
        `query ${q}`,
      );
    }
    const none = await ok(t, "contact.list", { query: "no-such-contact-xyz" }, k.acme);
    assert.deepEqual(none, { items: [], nextCursor: null });
  });

  test("limit bounds and a forged cursor are refused", async () => {
    await fails(t, "contact.list", { limit: 0 }, k.acme, 400);
    await fails(t, "contact.list", { limit: 101 }, k.acme, 400);
    const e = await fails(t, "contact.list", { cursor: "bm90LWEtY3Vyc29y" }, k.acme, 400);
    assert.equal(e.code, "validation_failed");
    assert.equal(e.details[0].path, "/input/cursor");
    assert.equal(e.details[0].code, "invalid_cursor");
    // A cursor of another list (vertical.list pages by id) is just as invalid here.
    const other = Buffer.from(JSON.stringify({ v: 1, k: "clinic" })).toString("base64url");
    const f = await fails(t, "contact.list", { cursor: other }, k.acme, 400);
    assert.equal(f.details[0].code, "invalid_cursor");
  });
});

describe("tenant isolation", () => {
  test("acme's contact is invisible to beta, to acme/shop1 (key and sub-tenant context), and vice versa", async () => {
    const c = await ok(t, "contact.create", { name: "Secret Acme Person", email: "secret@acme.example" }, k.acme);
    await fails(t, "contact.get", { id: c.id }, k.beta, 404);
    await fails(t, "contact.get", { id: c.id }, k.shop1, 404);
    await fails(t, "contact.get", { id: c.id }, k.acmeParent, 404, { tenantId: "shop1" });
    await fails(t, "contact.update", { id: c.id, name: "Hijack" }, k.beta, 404);
    for (const [key, ctx] of [
      [k.beta, undefined],
      [k.shop1, undefined],
      [k.acmeParent, { tenantId: "shop1" }],
    ] as const) {
      const page = await ok(t, "contact.list", { query: "Secret Acme" }, key, ctx);
      assert.deepEqual(page.items, []);
    }
    // A sub-tenant's contact is its own: the parent key addressing shop1 and the shop1 key see the same record.
    const s = await ok(t, "contact.create", { name: "Shop Person" }, k.acmeParent, { tenantId: "shop1" });
    assert.equal(s.tenant, "acme/shop1");
    assert.equal((await ok(t, "contact.get", { id: s.id }, k.shop1)).id, s.id);
    await fails(t, "contact.get", { id: s.id }, k.acme, 404);
    // unchanged after the attempts
    assert.equal((await ok(t, "contact.get", { id: c.id }, k.acme)).name, "Secret Acme Person");
  });

  test("idempotency keys are per tenant: the sub-tenant reusing acme's key gets its own contact", async () => {
    const a = await ok(t, "contact.create", { name: "Same Key", idempotencyKey: "shared-key" }, k.acme);
    const s = await ok(t, "contact.create", { name: "Same Key", idempotencyKey: "shared-key" }, k.shop1);
    assert.notEqual(a.id, s.id);
    assert.equal(s.tenant, "acme/shop1");
  });
});

describe("security", () => {
  test("no key → 401; a key without the scope → 403; context.tenantId without the sub-tenant flag → 403", async () => {
    const r = await fetch(`${t.url}/v1/abilities/contact.list`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: {} }),
    });
    assert.equal(r.status, 401);
    await ok(t, "contact.list", {}, k.readOnly);
    const e = await fails(t, "contact.create", { name: "x" }, k.readOnly, 403);
    assert.equal(e.code, "forbidden");
    await fails(t, "contact.list", {}, k.acme, 403, { tenantId: "shop1" });
  });

  test("server errors do not leak internals; ids with SQL are just not found", async () => {
    const e = await fails(t, "contact.get", { id: "ctc_x'OR'1'='1" }, k.acme, 400);
    assert.equal(e.details[0].path, "/input/id");
    await fails(t, "contact.get", { id: "ctc_1;DROP" }, k.acme, 400);
    await fails(t, "contact.get", { id: "ctc_nothing" }, k.acme, 404);
  });
});
