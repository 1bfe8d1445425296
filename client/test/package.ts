/**
 * Test helper: builds @gantry/client as it would be published (`scripts/build.ts`) into
 * `<dir>/node_modules/@gantry/client/` (package.json, README and dist/), so a script or a TypeScript
 * project in `<dir>` can import it by name, through its `exports` map.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLIENT_DIR = fileURLToPath(new URL("../", import.meta.url));
export const REPO_ROOT = path.join(CLIENT_DIR, "..");

/** Builds into `<dir>/node_modules/@gantry/client`; returns that package directory. */
export function installBuiltClient(dir: string): string {
  const pkg = path.join(dir, "node_modules", "@gantry", "client");
  fs.mkdirSync(pkg, { recursive: true });
  execFileSync(process.execPath, [path.join(CLIENT_DIR, "scripts", "build.ts"), "--out", path.join(pkg, "dist")], {
    stdio: "pipe",
  });
  for (const file of ["package.json", "README.md"]) fs.copyFileSync(path.join(CLIENT_DIR, file), path.join(pkg, file));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  return pkg;
}

/** Every file under `dir`, relative to it. */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() ? [path.relative(dir, path.join(e.parentPath, e.name))] : []));
}
