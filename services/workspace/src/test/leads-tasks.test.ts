/**
 * Leads and tasks through the gateway: creation (money in minor units, contact links, due times),
 * the state machines with history, illegal transitions (409 naming the allowed next states),
 * concurrent transitions, filters, pagination, idempotency and tenant isolation.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ISO, fails, ok, startWorkspaceStack, tenantKeys, type Keys, type TestStack } from "./helpers.ts";

let t: TestStack;
let k: Keys;

before(async () => {
  t = await startWorkspaceStack();
  k = await tenantKeys(t);
});
after(async () => t?.stop());

describe("lead.create / lead.get / lead.list", () => {
  test("creates a new lead linked to a contact, value in minor units, with its first history entry", async () => {
    const c = await ok(
      t,
      "contact.create",
      { name: "Contoso Buyer", email: "buyer@contoso.example", company: "Contoso" },
      k.acme,
    );
    const l = await ok(
      t,
      "lead.create",
      {
        name: "Website redesign",
        contactId: c.id,
        source: "referral",
        value: { amount: 12000.5, currency: "USD" },
        notes: "Warm intro",
      },
      k.acme,
    );
    assert.match(l.id, /^lead_/);
    assert.equal(l.status, "new");
    assert.equal(l.contactId, c.id);
    assert.equal(l.email, "buyer@contoso.example");
    assert.equal(l.company, "Contoso");
    assert.deepEqual(l.value, { amount: 12000.5, currency: "USD", minor: 1200050 });
    assert.match(l.created, ISO);
    assert.equal(l.history.length, 1);
    assert.deepEqual({ from: l.history[0].from, to: l.history[0].to }, { from: null, to: "new" });
    const { rows } = await t.db.query(`SELECT value_minor FROM workspace.leads WHERE id = $1`, [l.id]);
    assert.equal(rows[0].value_minor, "1200050");
    assert.deepEqual(await ok(t, "lead.get", { id: l.id }, k.acme), l);
  });

  test("currency precision is enforced (JPY has no decimals, unknown codes refused)", async () => {
    const jpy = await ok(t, "lead.create", { name: "Tokyo", value: { amount: 150000, currency: "JPY" } }, k.acme);
    assert.deepEqual(jpy.value, { amount: 150000, currency: "JPY", minor: 150000 });
    const a = await fails(t, "lead.create", { name: "Tokyo", value: { amount: 1.5, currency: "JPY" } }, k.acme, 400);
    assert.equal(a.details[0].path, "/input/value/amount");
    const b = await fails(t, "lead.create", { name: "X", value: { amount: 1, currency: "XYZ" } }, k.acme, 400);
    assert.equal(b.details[0].path, "/input/value/currency");
    await fails(t, "lead.create", { name: "X", value: { amount: 1.001, currency: "USD" } }, k.acme, 400);
  });

  test("a contactId of another tenant is refused", async () => {
    const c = await ok(t, "contact.create", { name: "Beta Person" }, k.beta);
    const e = await fails(t, "lead.create", { name: "Steal", contactId: c.id }, k.acme, 400);
    assert.equal(e.details[0].path, "/input/contactId");
  });

  test("list filters by status and query; isolation across tenants and sub-tenants", async () => {
    const a = await ok(t, "lead.create", { name: "Filter Alpha", source: "event" }, k.beta);
    const b = await ok(t, "lead.create", { name: "Filter Beta", source: "event" }, k.beta);
    await ok(t, "lead.update_status", { id: b.id, status: "contacted" }, k.beta);
    const contacted = await ok(t, "lead.list", { status: "contacted", query: "filter" }, k.beta);
    assert.deepEqual(
      contacted.items.map((x: { id: string }) => x.id),
      [b.id],
    );
    const all = await ok(t, "lead.list", { query: "FILTER" }, k.beta);
    assert.deepEqual(
      all.items.map((x: { id: string }) => x.id),
      [b.id, a.id],
    );
    assert.equal(all.items[0].history, undefined);
    assert.deepEqual((await ok(t, "lead.list", { query: "filter" }, k.acme)).items, []);
    assert.deepEqual((await ok(t, "lead.list", { query: "filter" }, k.acmeParent, { tenantId: "shop1" })).items, []);
    await fails(t, "lead.get", { id: a.id }, k.acme, 404);
    await fails(t, "lead.update_status", { id: a.id, status: "lost" }, k.acme, 404);
    assert.equal((await ok(t, "lead.get", { id: a.id }, k.beta)).status, "new");
  });

  test("idempotency and concurrent duplicates", async () => {
    const input = { name: "Idem Lead", value: { amount: 10, currency: "EUR" }, idempotencyKey: "lead-1" };
    const rs = await Promise.all(Array.from({ length: 8 }, () => t.call("lead.create", { input }, k.acme)));
    assert.ok(rs.every((r) => r.status === 200));
    assert.equal(new Set(rs.map((r) => r.body.result.id)).size, 1);
    const e = await fails(t, "lead.create", { ...input, value: { amount: 11, currency: "EUR" } }, k.acme, 409);
    assert.deepEqual(
      e.details.map((d: { path: string }) => d.path),
      ["/input/value"],
    );
  });
});

describe("lead.update_status", () => {
  test("walks new → contacted → qualified → won with history; won is final", async () => {
    const l = await ok(t, "lead.create", { name: "Walker" }, k.acme);
    await ok(t, "lead.update_status", { id: l.id, status: "contacted", reason: "Called" }, k.acme);
    await ok(t, "lead.update_status", { id: l.id, status: "qualified" }, k.acme);
    const won = await ok(t, "lead.update_status", { id: l.id, status: "won", reason: "Signed" }, k.acme);
    assert.equal(won.status, "won");
    assert.match(won.closed, ISO);
    assert.deepEqual(
      won.history.map((h: { from: string | null; to: string }) => `${h.from}->${h.to}`),
      ["null->new", "new->contacted", "contacted->qualified", "qualified->won"],
    );
    assert.equal(won.history[1].reason, "Called");
    assert.match(won.history[1].keyId, /^key_/);
    assert.match(won.history[1].requestId, /^req_/);
    const e = await fails(t, "lead.update_status", { id: l.id, status: "lost" }, k.acme, 409);
    assert.equal(e.code, "conflict");
    assert.equal(e.details[0].code, "illegal_transition");
    assert.deepEqual(e.details[0].allowed, []);
    assert.match(e.error, /won is final/);
  });

  test("an illegal move names the allowed next states; any open state may go to lost", async () => {
    const l = await ok(t, "lead.create", { name: "Skipper" }, k.acme);
    const e = await fails(t, "lead.update_status", { id: l.id, status: "won" }, k.acme, 409);
    assert.deepEqual(e.details[0].allowed, ["contacted", "lost"]);
    assert.equal(e.details[0].current, "new");
    assert.match(e.error, /contacted or lost/);
    const same = await ok(t, "lead.update_status", { id: l.id, status: "contacted" }, k.acme);
    const again = await fails(t, "lead.update_status", { id: l.id, status: "contacted" }, k.acme, 409);
    assert.deepEqual(again.details[0].allowed, ["qualified", "lost"]);
    const lost = await ok(t, "lead.update_status", { id: l.id, status: "lost", reason: "Went elsewhere" }, k.acme);
    assert.equal(lost.history.length, same.history.length + 1);
    await fails(t, "lead.update_status", { id: l.id, status: "new" }, k.acme, 400);
  });

  test("concurrent moves from the same state: exactly one wins", async () => {
    const l = await ok(t, "lead.create", { name: "Contested" }, k.acme);
    const rs = await Promise.all([
      t.call("lead.update_status", { input: { id: l.id, status: "contacted" } }, k.acme),
      t.call("lead.update_status", { input: { id: l.id, status: "contacted" } }, k.acme),
      t.call("lead.update_status", { input: { id: l.id, status: "contacted" } }, k.acme),
    ]);
    assert.deepEqual(rs.map((r) => r.status).sort(), [200, 409, 409]);
    const final = await ok(t, "lead.get", { id: l.id }, k.acme);
    assert.equal(final.history.length, 2);
  });
});

describe("task.create / task.get / task.list", () => {
  test("creates an open task with a due time and default priority medium", async () => {
    const before = Date.now();
    const task = await ok(t, "task.create", { title: "Call Contoso", assignedTo: "ada", dueInHours: 24 }, k.acme);
    assert.match(task.id, /^task_/);
    assert.equal(task.status, "open");
    assert.equal(task.priority, "medium");
    assert.equal(task.overdue, false);
    const due = Date.parse(task.dueAt);
    assert.ok(due >= before + 24 * 3600_000 - 1000 && due <= Date.now() + 24 * 3600_000 + 1000);
    assert.deepEqual(
      task.history.map((h: { to: string }) => h.to),
      ["open"],
    );
    assert.deepEqual(await ok(t, "task.get", { id: task.id }, k.acme), task);
    const v = await ok(t, "task.create", { title: "From vertical context" }, k.acme, { verticalId: "clinic" });
    assert.equal(v.vertical, "clinic");
    await fails(t, "task.create", { title: "x", priority: "critical" }, k.acme, 400);
    await fails(t, "task.create", { title: "x", dueInHours: 0 }, k.acme, 400);
  });

  test("filters: status, assignedTo, priority, overdue", async () => {
    const mk = (title: string, extra: object) =>
      ok(t, "task.create", { title, assignedTo: "filter-bot", ...extra }, k.beta);
    const urgent = await mk("Urgent one", { priority: "urgent", dueInHours: 1 });
    const late = await mk("Late one", { dueInHours: 1 });
    const done = await mk("Done one", { dueInHours: 1 });
    await mk("No due", {});
    await ok(t, "task.update_status", { id: done.id, status: "done" }, k.beta);
    // Make two of them overdue.
    await t.db.query(`UPDATE workspace.tasks SET due_at = now() - interval '2 hours' WHERE id = ANY($1)`, [
      [late.id, done.id],
    ]);
    const overdue = await ok(t, "task.list", { assignedTo: "filter-bot", overdue: true }, k.beta);
    assert.deepEqual(
      overdue.items.map((x: { id: string }) => x.id),
      [late.id],
    );
    assert.equal(overdue.items[0].overdue, true);
    const notOverdue = await ok(t, "task.list", { assignedTo: "filter-bot", overdue: false }, k.beta);
    assert.equal(notOverdue.items.length, 3);
    assert.deepEqual(
      (await ok(t, "task.list", { assignedTo: "filter-bot", priority: "urgent" }, k.beta)).items.map(
        (x: { id: string }) => x.id,
      ),
      [urgent.id],
    );
    assert.deepEqual(
      (await ok(t, "task.list", { assignedTo: "filter-bot", status: "done" }, k.beta)).items.map(
        (x: { id: string }) => x.id,
      ),
      [done.id],
    );
    assert.deepEqual((await ok(t, "task.list", { assignedTo: "filter-bot" }, k.acme)).items, []);
    const page1 = await ok(t, "task.list", { assignedTo: "filter-bot", limit: 2 }, k.beta);
    const page2 = await ok(t, "task.list", { assignedTo: "filter-bot", limit: 2, cursor: page1.nextCursor }, k.beta);
    assert.equal(page2.nextCursor, null);
    assert.equal(new Set([...page1.items, ...page2.items].map((x: { id: string }) => x.id)).size, 4);
  });

  test("idempotent task.create: retries return the same task", async () => {
    const input = { title: "Once", dueInHours: 5, idempotencyKey: "task-once" };
    const a = await ok(t, "task.create", input, k.acme);
    const b = await ok(t, "task.create", input, k.acme);
    assert.equal(a.id, b.id);
    assert.equal(a.dueAt, b.dueAt);
    const e = await fails(t, "task.create", { ...input, dueInHours: 6 }, k.acme, 409);
    assert.deepEqual(
      e.details.map((d: { path: string }) => d.path),
      ["/input/dueInHours"],
    );
  });
});

describe("task.update_status", () => {
  test("moves among open states, closes, refuses moves out of done except reopening", async () => {
    const task = await ok(t, "task.create", { title: "Lifecycle" }, k.acme);
    await ok(t, "task.update_status", { id: task.id, status: "in_progress" }, k.acme);
    await ok(t, "task.update_status", { id: task.id, status: "blocked", note: "Waiting for parts" }, k.acme);
    const done = await ok(t, "task.update_status", { id: task.id, status: "done" }, k.acme);
    assert.match(done.closed, ISO);
    const e = await fails(t, "task.update_status", { id: task.id, status: "in_progress" }, k.acme, 409);
    assert.deepEqual(e.details[0].allowed, ["open"]);
    const reopened = await ok(t, "task.update_status", { id: task.id, status: "open", note: "Not fixed" }, k.acme);
    assert.equal(reopened.closed, null);
    assert.deepEqual(
      reopened.history.map((h: { to: string }) => h.to),
      ["open", "in_progress", "blocked", "done", "open"],
    );
    assert.equal(reopened.history[2].note, "Waiting for parts");
    const same = await fails(t, "task.update_status", { id: task.id, status: "open" }, k.acme, 409);
    assert.deepEqual(same.details[0].allowed, ["in_progress", "blocked", "done", "cancelled"]);
    await ok(t, "task.update_status", { id: task.id, status: "cancelled" }, k.acme);
    await fails(t, "task.update_status", { id: task.id, status: "done" }, k.acme, 409);
  });

  test("other tenants cannot move or see the task", async () => {
    const task = await ok(t, "task.create", { title: "Mine" }, k.acme);
    await fails(t, "task.update_status", { id: task.id, status: "done" }, k.beta, 404);
    await fails(t, "task.update_status", { id: task.id, status: "done" }, k.shop1, 404);
    await fails(t, "task.get", { id: task.id }, k.acmeParent, 404, { tenantId: "shop1" });
    assert.equal((await ok(t, "task.get", { id: task.id }, k.acme)).status, "open");
  });
});
