/**
 * The result contract check: a result that matches its ability's output schema passes; one with a
 * missing field, a wrong type or an undeclared field is a 500 `internal` naming each JSON pointer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { GantryError } from "./errors.ts";
import { checkResult } from "./validation.ts";

const contact = {
  id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q",
  tenant: "acme",
  name: "Ada Obi",
  email: null,
  phone: "+2348031234567",
  company: null,
  metadata: { vip: true },
  vertical: null,
  created: "2026-11-23T10:00:00.000Z",
  updated: "2026-11-23T10:00:00.000Z",
};

test("a result that matches the ability's output schema passes", () => {
  checkResult("contact.get", contact);
  checkResult("contact.list", { items: [contact], nextCursor: null });
});

test("a result that breaks the contract is an internal error naming every mismatch", () => {
  const { name: _dropped, ...missingName } = contact;
  const bad = { ...missingName, created: 17, extra: "surprise" };
  assert.throws(
    () => checkResult("contact.get", bad),
    (err: unknown) => {
      assert.ok(err instanceof GantryError);
      assert.equal(err.code, "internal");
      const paths = (err.details ?? []).map((d) => d.path).sort();
      assert.ok(paths.includes("/result/name"), paths.join(", "));
      assert.ok(paths.includes("/result/created"), paths.join(", "));
      assert.ok(paths.includes("/result/extra"), paths.join(", "));
      return true;
    },
  );
});
