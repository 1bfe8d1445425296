/**
 * The filter grammar: every form the docs describe, evaluated against metadata.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileFilter, parseFilter } from "./filter.ts";

const vet = { kind: "vet", pet: "biscuit", age: 4, insured: true };
const care = { kind: "care", pet: "rex", age: 7 };

test("plain form: {key: value} means metadata key equals value (strictly)", () => {
  assert.equal(compileFilter({ kind: "vet" })(vet), true);
  assert.equal(compileFilter({ kind: "vet" })(care), false);
  assert.equal(compileFilter({ age: 4 })(vet), true);
  assert.equal(compileFilter({ age: "4" })(vet), false);
  assert.equal(compileFilter({ insured: true })(vet), true);
  assert.equal(compileFilter({ insured: true })(care), false, "absent key");
  assert.equal(compileFilter({ kind: "vet", pet: "rex" })(vet), false, "all top-level conditions must hold");
});

test("operators: $eq $ne $in $nin $gt $gte $lt $lte", () => {
  assert.equal(compileFilter({ kind: { $eq: "vet" } })(vet), true);
  assert.equal(compileFilter({ kind: { $ne: "vet" } })(care), true);
  assert.equal(compileFilter({ insured: { $ne: true } })(care), true, "$ne matches an absent key");
  assert.equal(compileFilter({ pet: { $in: ["rex", "tom"] } })(care), true);
  assert.equal(compileFilter({ pet: { $in: ["rex", "tom"] } })(vet), false);
  assert.equal(compileFilter({ pet: { $nin: ["rex"] } })(vet), true);
  assert.equal(compileFilter({ missing: { $nin: ["x"] } })(vet), true, "$nin matches an absent key");
  assert.equal(compileFilter({ age: { $gt: 4 } })(vet), false);
  assert.equal(compileFilter({ age: { $gte: 4 } })(vet), true);
  assert.equal(compileFilter({ age: { $gt: 2, $lt: 5 } })(vet), true, "operators on one key combine with AND");
  assert.equal(compileFilter({ age: { $lte: 3 } })(vet), false);
  assert.equal(compileFilter({ kind: { $gt: 1 } })(vet), false, "ranges only match numbers");
  assert.equal(compileFilter({ missing: { $lt: 100 } })(vet), false);
});

test("$and / $or lists of condition objects", () => {
  const f = compileFilter({ $or: [{ pet: "rex" }, { age: { $lt: 5 } }] });
  assert.equal(f(vet), true);
  assert.equal(f(care), true);
  assert.equal(f({ pet: "tom", age: 9 }), false);
  const g = compileFilter({
    kind: "vet",
    $and: [{ age: { $gte: 1 } }, { pet: { $ne: "rex" } }],
    $or: [{ insured: true }, { age: 99 }],
  });
  assert.equal(g(vet), true);
  assert.equal(g({ ...vet, insured: false }), false);
});

test("empty filter matches everything; malformed filters are refused with a path", () => {
  assert.equal(parseFilter(undefined), undefined);
  assert.equal(parseFilter({}), undefined);
  assert.throws(() => parseFilter({ kind: { $regex: "v.*" } }), /\/input\/filter\/kind\/\$regex/);
  assert.throws(() => parseFilter({ $not: [{ a: 1 }] }), /not a combinator/);
  assert.throws(() => parseFilter({ $or: [{ $and: [{ a: 1 }] }] }), /only appear at the top level/);
  assert.throws(() => parseFilter({ a: { $in: [] } }), /non-empty list/);
  assert.throws(() => parseFilter({ a: { $gt: "x" } }), /must be a number/);
});
