/**
 * Validation messages: one detail per field, in words. No raw regex reaches a user (every pattern
 * of the catalogue has words), `name: ""` is one "must not be empty" rather than minLength and
 * pattern duplicates, a URL field says it must start with http:// or https://, and a nullable
 * field's two type failures are one message. `code` stays the failing keyword, `path` the pointer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { catalogue } from "@gantry/proto/catalogue";
import { line, object, url } from "@gantry/proto/catalogue/schema.ts";
import { GantryError, type ErrorDetail } from "./errors.ts";
import { PATTERN_WORDS, createAjv, toDetails, validateInput } from "./validation.ts";

function detailsOf(ability: string, input: unknown): ErrorDetail[] {
  try {
    validateInput(ability, input);
  } catch (err) {
    assert.ok(err instanceof GantryError && err.code === "validation_failed", String(err));
    return err.details ?? [];
  }
  assert.fail(`${ability} accepted ${JSON.stringify(input)}`);
}

const REGEX_LIKE = /\^|\$"|\[\^|\\[rns]|\{\d+,?\d*\}/;

test('name: "" is one detail, "must not be empty", with code minLength', () => {
  const details = detailsOf("contact.create", { name: "" });
  assert.deepEqual(
    details.map((d) => [d.path, d.code, d.message]),
    [["/input/name", "minLength", "/input/name must not be empty"]],
  );
});

test("a line break in a single-line field says so in words, not as a pattern", () => {
  const [d] = detailsOf("contact.create", { name: "Ada\nObi" });
  assert.equal(d.path, "/input/name");
  assert.equal(d.code, "pattern");
  assert.equal(d.message, "/input/name must be a single line (no line breaks)");
});

test("one message per field; several fields keep one each, in words", () => {
  const details = detailsOf("contact.create", { name: "", email: "not-an-email", nickname: 1 });
  assert.deepEqual(details.map((d) => d.path).sort(), ["/input/email", "/input/name", "/input/nickname"]);
  const email = details.find((d) => d.path === "/input/email")!;
  assert.equal(email.message, "/input/email must be an email address");
  for (const d of details) assert.doesNotMatch(d.message, REGEX_LIKE, d.message);
});

test("a URL field: a non-http scheme or no URL at all is one message naming http:// or https://", () => {
  const validate = createAjv().compile(object({ link: url("A link.") }, ["link"]));
  for (const link of ["ftp://example.com/x", "not a url"]) {
    assert.equal(validate({ link }), false);
    const details = toDetails(validate.errors ?? []);
    assert.equal(details.length, 1, JSON.stringify(details));
    assert.equal(details[0].path, "/input/link");
    assert.equal(details[0].message, "/input/link must be a URL starting with http:// or https://");
  }
});

test("a nullable field of the wrong type is one message: a string or null", () => {
  const [d] = detailsOf("contact.update", { id: "ctc_01J9ZD6E7F8G9H0J1K2M3N4P5Q", company: 5 });
  assert.equal(d.path, "/input/company");
  assert.equal(d.code, "type");
  assert.equal(d.message, "/input/company must be a string or null");
});

test("lengths and bounds are in words", () => {
  const validate = createAjv().compile(object({ title: line("A title.", 5) }, ["title"]));
  validate({ title: "far too long" });
  assert.equal(toDetails(validate.errors ?? [])[0].message, "/input/title must be at most 5 characters long");
});

test("every pattern in the catalogue's input schemas has words (no raw regex reaches a user)", () => {
  const missing = new Set<string>();
  const walk = (s: unknown) => {
    if (Array.isArray(s)) return s.forEach(walk);
    if (!s || typeof s !== "object") return;
    for (const [k, v] of Object.entries(s)) {
      if (k === "pattern" && typeof v === "string") {
        if (!Object.hasOwn(PATTERN_WORDS, v)) missing.add(v);
      } else walk(v);
    }
  };
  for (const a of catalogue) walk(a.input);
  assert.deepEqual([...missing], [], "add these patterns to PATTERN_WORDS in kit/src/validation.ts");
  for (const words of Object.values(PATTERN_WORDS)) assert.doesNotMatch(words, REGEX_LIKE, words);
});
