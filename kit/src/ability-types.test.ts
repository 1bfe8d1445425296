/**
 * Handler results are typed from the catalogue (issue 31 item 1): `ability(id, run)` makes `run`
 * return `Promise<OutputOf<id>>`, so a result field the catalogue's `output` schema does not name, a
 * missing one or one of the wrong type is a compile error in the handler, not a surprise at run
 * time. This test type-checks tiny handlers on their own (infra/testing/typecheck-fixtures): the
 * broken ones must fail naming the field, the correct one must compile.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { typecheckFixtures } from "@gantry/infra/testing/typecheck-fixtures.ts";

/** event.emit's result: `{id, subject, sequence, stream, emitted}` (proto/catalogue/workspace.ts). */
const handler = (result: string) => `import { abilityOf } from "../../kit/src/ability.ts";
const ability = abilityOf<unknown>();
export default ability("event.emit", async () => (${result}));
`;

const FIXTURES: Record<string, string> = {
  "correct.ts": handler(
    `{ id: "evt_1", subject: "events.t.e", sequence: 1, stream: "EVENTS", emitted: "2026-01-01T00:00:00Z" }`,
  ),
  "misnamed.ts": handler(
    `{ id: "evt_1", subject: "events.t.e", sequense: 1, stream: "EVENTS", emitted: "2026-01-01T00:00:00Z" }`,
  ),
  "mistyped.ts": handler(
    `{ id: "evt_1", subject: "events.t.e", sequence: "1", stream: "EVENTS", emitted: "2026-01-01T00:00:00Z" }`,
  ),
  "missing.ts": handler(`{ id: "evt_1", subject: "events.t.e", sequence: 1, stream: "EVENTS" }`),
  // A generated ability index (kit/scripts/generate.ts) that maps an id to another ability's handler.
  "index.ts": `import type { AbilityIndex } from "../../kit/src/ability.ts";
import emit from "./correct.ts";
export default { "contact.get": emit } satisfies AbilityIndex;
`,
};

test("a handler's result is checked against the catalogue's output schema at compile time", () => {
  const { out, status, errorsOf } = typecheckFixtures("ability-types", FIXTURES);
  assert.equal(errorsOf("correct.ts"), "", `a handler returning the catalogue's fields must compile:\n${out}`);
  assert.match(errorsOf("misnamed.ts"), /sequense/, `a misnamed result field must be named:\n${out}`);
  assert.match(errorsOf("mistyped.ts"), /sequence/, `a result field of the wrong type must be named:\n${out}`);
  assert.match(errorsOf("missing.ts"), /emitted/, `a missing result field must be named:\n${out}`);
  assert.match(
    errorsOf("index.ts"),
    /event\.emit/,
    `an index entry naming another ability's handler must fail:\n${out}`,
  );
  assert.notEqual(status, 0);
});
