/**
 * @module infra/testing/typecheck-fixtures
 * Proves that types bite: writes small source files to a temporary directory under `.gantry/`
 * (git-ignored and outside the tree's own type check, so a concurrent `npm run typecheck` never sees
 * them), runs tsc on them alone with the tree's options, and answers each file's errors. A test then
 * asserts that the correct fixture compiles and each broken one fails naming what is wrong
 * (kit/src/ability-types.test.ts, kit/src/grpc-types.test.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(root, "node_modules/.bin/tsc");

export interface FixtureCheck {
  /** tsc's whole output. */
  out: string;
  /** tsc's exit status (non-zero when any fixture has an error). */
  status: number | null;
  /** The error lines of one fixture ("" when it compiles). */
  errorsOf: (file: string) => string;
}

/** Type-checks `fixtures` (file name → source; they import the tree as `../../<path>`). */
export function typecheckFixtures(name: string, fixtures: Record<string, string>): FixtureCheck {
  mkdirSync(join(root, ".gantry"), { recursive: true });
  const dir = mkdtempSync(join(root, ".gantry", `${name}-`));
  try {
    for (const [file, source] of Object.entries(fixtures)) writeFileSync(join(dir, file), source);
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
    return { out, status: run.status, errorsOf };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
