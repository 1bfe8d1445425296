/**
 * Handler results are typed from the catalogue (issue 31 item 1): `ability(id, run)` makes `run`
 * return `Promise<OutputOf<id>>`, so a result field the catalogue's `output` schema does not name, a
 * missing one or one of the wrong type is a compile error in the handler, not a surprise at run
 * time. This test writes tiny handlers to a temporary directory under `.gantry/` (git-ignored and
 * outside the tree's own type check, so a concurrent `npm run typecheck` never sees them) and runs
 * tsc on them alone: the broken ones must fail naming the field, the correct one must compile.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(root, "node_modules/.bin/tsc");

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
};

test("a handler's result is checked against the catalogue's output schema at compile time", () => {
  mkdirSync(join(root, ".gantry"), { recursive: true });
  const dir = mkdtempSync(join(root, ".gantry", "ability-types-"));
  try {
    for (const [name, source] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), source);
    // Only the fixtures (and what they import): the tree's options, none of its files.
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"], exclude: [] }),
    );
    const run = spawnSync(tsc, ["-p", join(dir, "tsconfig.json"), "--noEmit", "--pretty", "false"], {
      cwd: root,
      encoding: "utf8",
    });
    const out = `${run.stdout}${run.stderr}`;
    const errorsOf = (file: string) =>
      out
        .split("\n")
        .filter((line) => line.includes(`${file}(`))
        .join("\n");

    assert.equal(errorsOf("correct.ts"), "", `a handler returning the catalogue's fields must compile:\n${out}`);
    assert.match(errorsOf("misnamed.ts"), /sequense/, `a misnamed result field must be named:\n${out}`);
    assert.match(errorsOf("mistyped.ts"), /sequence/, `a result field of the wrong type must be named:\n${out}`);
    assert.match(errorsOf("missing.ts"), /emitted/, `a missing result field must be named:\n${out}`);
    assert.notEqual(run.status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
