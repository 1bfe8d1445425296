/**
 * @module client/scripts/build
 * Builds the publishable package: refreshes `src/generated/` from the catalogue, compiles `src/` with
 * `tsconfig.build.json` (ES2022 ESM + declarations, DOM lib, no Node types) into `dist/`, and rewrites
 * the relative `.ts` specifiers tsc leaves in declaration files to `.js`, so the `.d.ts` files read
 * like any package's (TypeScript < 5.7 consumers included).
 *
 * Usage: `node client/scripts/build.ts [--out <dir>]` (default `client/dist`; tests build elsewhere).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { write } from "./generate.ts";

const CLIENT = fileURLToPath(new URL("../", import.meta.url));
const ROOT = path.join(CLIENT, "..");

const outFlag = process.argv.indexOf("--out");
const outDir = path.resolve(outFlag > 0 ? process.argv[outFlag + 1] : path.join(CLIENT, "dist"));

write();
fs.rmSync(outDir, { recursive: true, force: true });
const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
const run = spawnSync(process.execPath, [tsc, "-p", path.join(CLIENT, "tsconfig.build.json"), "--outDir", outDir], {
  stdio: "inherit",
});
if (run.status !== 0) {
  console.error(`client build: tsc failed (exit ${run.status ?? run.signal})`);
  process.exit(1);
}

const walk = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full) : [full];
  });
for (const file of walk(outDir)) {
  if (!file.endsWith(".d.ts")) continue;
  const text = fs.readFileSync(file, "utf8");
  const fixed = text.replace(/(from\s+["']|import\(["'])(\.{1,2}\/[^"']+?)\.ts(["'])/g, "$1$2.js$3");
  if (fixed !== text) fs.writeFileSync(file, fixed);
}
if (outFlag < 0) console.log(`client build: ${path.relative(process.cwd(), outDir) || "."}`);
