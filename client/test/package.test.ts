/**
 * The package as published: `scripts/build.ts` output is self-contained ES2022 ESM with declarations
 * (nothing from the server monorepo, no Node built-ins), and a TypeScript project that has only the
 * DOM lib (a browser app) or only Node's types gets the ability types through the `exports` map.
 * (The live run of the built package under Node 20 is in live.test.ts, which has a stack.)
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { filesUnder, installBuiltClient, REPO_ROOT } from "./package.ts";

let dir: string;
let pkg: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gantry-client-pkg-"));
  pkg = installBuiltClient(dir);
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("dist holds .js and .d.ts for every module, importing nothing but its own files", () => {
  const files = filesUnder(path.join(pkg, "dist")).sort();
  for (const mod of ["index", "client", "errors", "types", "generated/abilities", "generated/runtime"]) {
    assert.ok(files.includes(`${mod}.js`), `${mod}.js missing`);
    assert.ok(files.includes(`${mod}.d.ts`), `${mod}.d.ts missing`);
  }
  for (const file of files) {
    // Without comments: doc examples say `import … from "@gantry/client"`.
    const text = fs
      .readFileSync(path.join(pkg, "dist", file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    const specifiers = [...text.matchAll(/(?:from\s+|import\()["']([^"']+)["']/g)].map((m) => m[1]);
    for (const spec of specifiers) {
      assert.match(spec, /^\.{1,2}\/.*\.js$/, `${file} imports ${spec}`);
    }
    assert.doesNotMatch(text, /@gantry\/(proto|kit|infra)|node:/, `${file} refers to the monorepo or Node`);
  }
});

test("the runtime code is small: the catalogue's schemas stay out of the bundle", () => {
  const js = filesUnder(path.join(pkg, "dist")).filter((f) => f.endsWith(".js"));
  const bytes = js.reduce((sum, f) => sum + fs.statSync(path.join(pkg, "dist", f)).size, 0);
  assert.ok(bytes < 40_000, `${bytes} bytes of JavaScript`);
});

const consumer = `
import { createClient, GantryApiError, isGantryApiError, type ContactCreateInput } from "@gantry/client";
const gantry = createClient({ baseUrl: "http://localhost:8080", apiKey: "gk_x" });
export async function run(): Promise<string> {
  const input: ContactCreateInput = { name: "Ada" };
  const contact = await gantry.contact.create(input);
  const meta = await gantry.callWithMeta("contact.get", { id: contact.id });
  try {
    await gantry.memory.search({ query: "q", limit: 3 });
  } catch (err) {
    if (err instanceof GantryApiError && err.code === "rate_limited") return String(err.retryAfterMs);
    if (isGantryApiError(err, "not_found")) return err.requestId;
  }
  // @ts-expect-error name is required
  await gantry.contact.create({});
  return meta.result.name + meta.requestId;
}
`;

for (const [label, compilerOptions] of [
  [
    "browser project (DOM lib, bundler resolution, no Node types)",
    { lib: ["es2022", "dom"], module: "esnext", moduleResolution: "bundler", types: [] },
  ],
  [
    "Node project (nodenext, @types/node, no DOM lib)",
    {
      lib: ["es2022"],
      module: "nodenext",
      moduleResolution: "nodenext",
      types: ["node"],
      typeRoots: [path.join(REPO_ROOT, "node_modules", "@types")],
    },
  ],
] as const) {
  test(`a ${label} typechecks against the built declarations`, () => {
    const project = path.join(dir, label.split(" ")[0]);
    fs.mkdirSync(project, { recursive: true });
    fs.writeFileSync(path.join(project, "app.ts"), consumer);
    fs.writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "es2022", strict: true, noEmit: true, skipLibCheck: false, ...compilerOptions },
        files: ["app.ts"],
      }),
    );
    const tsc = path.join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    try {
      execFileSync(process.execPath, [tsc, "-p", project], { stdio: "pipe", cwd: project });
    } catch (err) {
      const e = err as { stdout?: Buffer; stderr?: Buffer };
      assert.fail(`tsc failed:\n${e.stdout?.toString()}${e.stderr?.toString()}`);
    }
  });
}
