/**
 * @module infra/scripts/test
 * `npm test`: typecheck the whole repository (`tsc -p tsconfig.json`), check format and lint
 * (`biome ci .`, config in biome.json), then run every
 * `*.test.ts` under proto/, kit/, gateway/, services/<name>/src/ and infra/ with Node's test
 * runner (spec reporter, one file at a time: integration tests start whole stacks).
 *
 * Usage:
 *   npm test                               everything
 *   npm test -- gateway                    only files whose path contains "gateway"
 *   npm test -- kit/src/key-format.test.ts one file
 *   npm test -- --test-name-pattern=503    options starting with "-" go to `node --test`
 *   GANTRY_SKIP_TYPECHECK=1 npm test       skip the typecheck and the lint (quick local loops)
 *
 * Exits with the test runner's code; its summary (ℹ tests / ℹ pass / ℹ fail) is the last output.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runChild } from "./run-child.ts";
import { CHROMIUM_NO_SANDBOX_ENV } from "@gantry/kit/chromium.ts";
import { chromiumSandboxRefusal } from "../runner/chromium-sandbox.ts";
import { ensureDirectory } from "../runner/directory.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROOTS = ["proto", "kit", "gateway", "services", "infra", "bench", "k8s", "client"];

const args = process.argv.slice(2);
const nodeArgs = args.filter((a) => a.startsWith("-"));
const filters = args.filter((a) => !a.startsWith("-"));

const run = (cmd: string, argv: string[]) => runChild(cmd, argv, { cwd: ROOT });

/** Test files: services only under services/<name>/src/, nothing under node_modules or generated code. */
function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".") || entry.name === "generated") continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(".test.ts")) found.push(path.relative(ROOT, full));
    }
  };
  for (const top of ROOTS) {
    const dir = path.join(ROOT, top);
    if (fs.existsSync(dir)) walk(dir);
  }
  return found
    .filter(
      (f) => !f.startsWith("services/") || /^services\/[^/]+\/src\//.test(f) || /^services\/[^/]+\/test\//.test(f),
    )
    .sort();
}

if (process.env.GANTRY_SKIP_TYPECHECK !== "1") {
  const started = Date.now();
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  console.log("typecheck: tsc -p tsconfig.json");
  const code = await run(process.execPath, [tsc, "-p", "tsconfig.json"]);
  if (code !== 0) {
    console.error(`typecheck failed (exit ${code}); fix the errors above (GANTRY_SKIP_TYPECHECK=1 skips this step)`);
    process.exit(code);
  }
  console.log(`typecheck: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const biome = path.join(ROOT, "node_modules", "@biomejs", "biome", "bin", "biome");
  console.log("lint: biome ci .");
  const lint = await run(process.execPath, [biome, "ci", "--colors=off", "."]);
  if (lint !== 0) {
    console.error(`lint failed (exit ${lint}); \`npx biome check --write .\` fixes formatting and safe lint findings`);
    process.exit(lint);
  }
}

let files = testFiles();
if (filters.length) {
  files = files.filter((f) => filters.some((flt) => f === path.normalize(flt) || f.includes(flt)));
  if (files.length === 0) {
    console.error(`no test file matches ${filters.join(", ")}`);
    process.exit(1);
  }
}
if (files.length === 0) {
  console.log("no test files found");
  process.exit(0);
}

// Tests that start a browser do so with its sandbox, as the services do, unless it cannot run here
// (infra/runner/chromium-sandbox.ts); then the one setting that switches it off is set, and said.
if (process.env[CHROMIUM_NO_SANDBOX_ENV] === undefined) {
  const refusal = await chromiumSandboxRefusal();
  if (refusal) {
    process.env[CHROMIUM_NO_SANDBOX_ENV] = "1";
    console.log(`chromium: sandbox off for the tests: ${refusal} (${CHROMIUM_NO_SANDBOX_ENV}=1)`);
  }
}

// The connections service serves the directory toolkits by default; their artifact is built once per
// machine before any test starts the service.
await ensureDirectory(process.env, (line) => console.log(line));

const code = await run(process.execPath, [
  "--test",
  "--test-reporter=spec",
  "--test-concurrency=1",
  "--test-timeout=600000",
  ...nodeArgs,
  ...files,
]);
process.exit(code);
