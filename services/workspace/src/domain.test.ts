/**
 * Unit tests of the workspace service's pure helpers: phone normalisation, money, ids, the cursors
 * its lists use (the kit's codec), idempotency field diffs, doc ops, the lead/task state machines,
 * the tenant subject token, and the WORKFLOW_ENDPOINTS parser. No stack needed.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  GantryError,
  canonicalJson,
  decodeCursor,
  differingFields,
  encodeCursor,
  eventSubject,
  tenantFromToken,
  tenantToken,
  toPage,
  workflowSubject,
} from "@gantry/kit";
import { normalizePhone } from "./phone.ts";
import { moneyOut, toMinor } from "@gantry/kit/money.ts";
import { ulid } from "@gantry/kit";
import { newId } from "./ids.ts";
import { applyOps } from "./docs.ts";
import { assertTransition, LEAD_NEXT, TASK_NEXT } from "./transitions.ts";
import { parseWorkflowEndpoints } from "./config.ts";

describe("phone", () => {
  test("normalises separators and 00, requires a country code and a plausible length", () => {
    assert.deepEqual(normalizePhone("+234 (803) 123-4567"), { ok: true, e164: "+2348031234567" });
    assert.deepEqual(normalizePhone("0044 20 7946 0958"), { ok: true, e164: "+442079460958" });
    assert.deepEqual(normalizePhone("+1.415.555.0142"), { ok: true, e164: "+14155550142" });
    for (const bad of ["020 7946 0958", "+0 123 4567 89", "+44 12", "+999 1234 5678", "+1234567890123456"]) {
      assert.equal(normalizePhone(bad).ok, false, bad);
    }
  });
});

describe("money", () => {
  test("minor units per currency, refusing excess precision", () => {
    assert.equal(toMinor(12.34, "USD", "/v"), 1234n);
    assert.equal(toMinor(0.3, "EUR", "/v"), 30n);
    assert.equal(toMinor(1.15, "USD", "/v"), 115n); // 1.15 * 100 is 114.99999999999999 in floating point
    assert.equal(toMinor(500, "JPY", "/v"), 500n);
    assert.equal(toMinor(1.234, "KWD", "/v"), 1234n);
    assert.throws(
      () => toMinor(1.5, "JPY", "/v"),
      (e: GantryError) => e.details?.[0].path === "/v/amount",
    );
    assert.throws(
      () => toMinor(1, "ABC", "/v"),
      (e: GantryError) => e.details?.[0].path === "/v/currency",
    );
    assert.deepEqual(moneyOut(1234n, "USD"), { amount: 12.34, currency: "USD", minor: 1234 });
  });
});

describe("ids and cursors", () => {
  test("prefixed ULIDs sort by time", () => {
    assert.match(newId("contact"), /^ctc_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.match(newId("workflowRun"), /^wfr_/);
    assert.ok(ulid(1_000) < ulid(2_000));
  });

  test("cursors round-trip and pages stop at the end", () => {
    const shape = { c: "number", i: "string" } as const;
    const c = encodeCursor({ c: 1700000000123, i: "ctc_X" });
    assert.deepEqual(decodeCursor(c, shape), { c: 1700000000123, i: "ctc_X" });
    const invalid = (e: GantryError) => e.code === "validation_failed" && e.details?.[0].code === "invalid_cursor";
    assert.throws(() => decodeCursor("garbage!", shape), invalid);
    assert.throws(() => decodeCursor(Buffer.from('{"v":1,"c":"x","i":1}').toString("base64url"), shape), invalid);
    // vertical.list pages by manifest id: a list's cursor is not another list's.
    assert.deepEqual(decodeCursor(encodeCursor({ k: "clinic" }), { k: "string" }), { k: "clinic" });
    assert.throws(() => decodeCursor(c, { k: "string" }), invalid);
    const rows = [3, 2, 1].map((n) => ({ id: `r${n}`, createdAt: new Date(n) }));
    const p = toPage(rows, 2, (r) => r.id);
    assert.deepEqual(p.items, ["r3", "r2"]);
    assert.deepEqual(decodeCursor(p.nextCursor!, shape), { c: 2, i: "r2" });
    assert.equal(toPage(rows, 3, (r) => r.id).nextCursor, null);
  });
});

describe("idempotency", () => {
  test("canonical JSON ignores key order; differing fields are named", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } }),
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    assert.deepEqual(
      differingFields({ name: "a", meta: { x: 1, y: 2 } }, { meta: { y: 2, x: 1 }, name: "b", phone: "+1" }),
      ["name", "phone"],
    );
  });
});

describe("doc ops", () => {
  test("apply in order against the running result", () => {
    assert.equal(
      applyOps("a b c", [
        { op: "replace", find: "b", text: "B" },
        { op: "insert_after", find: "B", text: "!" },
        { op: "append", text: "." },
      ]),
      "a B! c.",
    );
    assert.equal(applyOps("x", [{ op: "replace", find: "x", text: "" }]), "");
    assert.throws(
      () => applyOps("aa", [{ op: "replace", find: "a", text: "b" }]),
      (e: GantryError) => e.details?.[0].code === "anchor_ambiguous",
    );
    assert.throws(
      () =>
        applyOps("a", [
          { op: "append", text: "z" },
          { op: "insert_after", find: "q", text: "b" },
        ]),
      (e: GantryError) => e.details?.[0].path === "/input/ops/1/find",
    );
  });
});

describe("state machines", () => {
  test("lead: forward only, lost from any open state, won/lost final", () => {
    assert.deepEqual(LEAD_NEXT.new, ["contacted", "lost"]);
    assert.doesNotThrow(() => assertTransition("lead", "l", "qualified", "won"));
    for (const [from, to] of [
      ["new", "won"],
      ["won", "lost"],
      ["lost", "contacted"],
      ["contacted", "new"],
      ["contacted", "contacted"],
    ]) {
      assert.throws(
        () => assertTransition("lead", "l", from, to),
        (e: GantryError) => e.code === "conflict" && e.details?.[0].code === "illegal_transition",
        `${from}->${to}`,
      );
    }
  });
  test("task: free among open states; done/cancelled only reopen", () => {
    for (const from of ["open", "in_progress", "blocked"])
      for (const to of ["done", "cancelled"]) assert.doesNotThrow(() => assertTransition("task", "t", from, to));
    assert.deepEqual(TASK_NEXT.done, ["open"]);
    assert.throws(() => assertTransition("task", "t", "cancelled", "done"), GantryError);
  });
});

describe("tenant subject token", () => {
  test("escapes everything but letters, digits and -, reversibly and injectively", () => {
    const cases: Array<[string, string]> = [
      ["acme", "acme"],
      ["acme/shop1", "acme_2Fshop1"],
      ["north.wind_co", "north_2Ewind_5Fco"],
      ["a-b", "a-b"],
      ["acme/sim-01jx", "acme_2Fsim-01jx"],
    ];
    for (const [tenant, token] of cases) {
      assert.equal(tenantToken(tenant), token);
      assert.equal(tenantFromToken(token), tenant);
      assert.doesNotMatch(token, /[.*>\s]/);
    }
    // "a_2Fb" (a literal tenant with an underscore) and "a/b" must not collide.
    assert.notEqual(tenantToken("a_2Fb"), tenantToken("a/b"));
    assert.throws(() => tenantFromToken("a.b"));
    assert.throws(() => tenantFromToken("_41"), /canonical/);
    assert.equal(eventSubject("acme/shop1", "order.paid"), "events.acme_2Fshop1.order.paid");
    assert.equal(workflowSubject("acme", "sync", "triggered"), "workflows.acme.sync.triggered");
  });
});

describe("WORKFLOW_ENDPOINTS", () => {
  test("parses valid entries and names every problem", () => {
    const ok = parseWorkflowEndpoints(
      JSON.stringify({ acme: { url: "https://hooks.acme.example/gantry", secret: "0123456789abcdef" } }),
      false,
    );
    assert.equal(ok.get("acme")!.url.host, "hooks.acme.example");
    assert.throws(() => parseWorkflowEndpoints("{", false), /not valid JSON/);
    assert.throws(
      () =>
        parseWorkflowEndpoints(
          JSON.stringify({
            acme: { url: "http://hooks.example/x", secret: "short" },
            "bad tenant": { url: "https://u:p@x.example", secret: "0123456789abcdef", extra: 1 },
            other: { url: "https://hooks.example:8443/x", secret: "0123456789abcdef" },
          }),
          false,
        ),
      (e: Error) =>
        /must be https/.test(e.message) &&
        /at least 16/.test(e.message) &&
        /not a tenant id/.test(e.message) &&
        /credentials/.test(e.message) &&
        /port 8443 is not allowed/.test(e.message) &&
        /unknown field/.test(e.message),
    );
    assert.equal(
      parseWorkflowEndpoints(JSON.stringify({ t: { url: "http://127.0.0.1:9/x", secret: "0123456789abcdef" } }), true)
        .size,
      1,
    );
  });
});
