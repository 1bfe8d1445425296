/**
 * The developer docs cannot drift from the code they show (issue 31):
 *
 * - A fenced block whose info string names a file after the language (three backticks, `ts`, then
 *   the file's repository path) must appear in that file character for character. Those files are
 *   type-checked with the rest of the tree, so docs/development.md's worked example compiles.
 * - Every repository path the pages name (`gateway/src/…`, `kit/src/…`, `services/<name>/…`,
 *   `proto/…`, …) exists, so "follow one call" names real files.
 * - kit/README.md has a line for every source file of kit/src, and names no file that is not there.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PAGES = ["docs/development.md", "kit/README.md", "proto/README.md"];
const TOP = new Set(["gateway", "kit", "services", "proto", "infra", "docs", "bench", "k8s", "client"]);

const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), "utf8");

/** Fenced blocks as [info string, body]; the body without the fence lines. */
function fences(markdown: string): Array<{ info: string; body: string; line: number }> {
  const out: Array<{ info: string; body: string; line: number }> = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].trimStart();
    if (!open.startsWith("```")) continue;
    const indent = lines[i].length - open.length;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].trimStart().startsWith("```"); i++) body.push(lines[i].slice(indent));
    out.push({ info: open.slice(3).trim(), body: body.join("\n"), line: start + 1 });
  }
  return out;
}

/** Words of the page that are repository paths: a known top-level folder, then segments, with a file extension or a trailing slash. */
function repoPaths(markdown: string): string[] {
  const found = new Set<string>();
  for (const word of markdown.split(/[\s`'"()[\],;:|]+/)) {
    const clean = word.replace(/[.)]+$/, (m) => (m.startsWith(".") && /\.[a-z]+$/.test(word) ? "" : m));
    const first = clean.split("/")[0];
    if (!TOP.has(first) || !clean.includes("/")) continue;
    if (/[<>*…{}$]/.test(clean)) continue; // a pattern (services/<name>/…), not a path
    if (clean.includes("/generated/")) continue; // written by `npm run generate`, not in a fresh checkout
    const isFile = /\.(ts|md|proto|json|sql|yaml|svg)$/.test(clean);
    if (isFile || clean.endsWith("/")) found.add(clean);
  }
  return [...found].sort();
}

test("every fenced block that names its file appears in that file verbatim", () => {
  let checked = 0;
  for (const page of PAGES) {
    for (const block of fences(read(page))) {
      const [, file] = block.info.split(/\s+/);
      if (!file) continue;
      assert.ok(fs.existsSync(path.join(ROOT, file)), `${page}:${block.line} names ${file}, which does not exist`);
      assert.ok(
        read(file).includes(block.body),
        `${page}:${block.line}: the block is no longer in ${file}; copy the current code into the page`,
      );
      checked++;
    }
  }
  assert.ok(checked >= 5, `only ${checked} blocks name their file: the worked example lost its anchors`);
});

test("every repository path the developer pages name exists", () => {
  const missing: string[] = [];
  let count = 0;
  for (const page of PAGES) {
    for (const p of repoPaths(read(page))) {
      count++;
      if (!fs.existsSync(path.join(ROOT, p))) missing.push(`${page}: ${p}`);
    }
  }
  assert.ok(count > 40, `read only ${count} paths`);
  assert.deepEqual(missing, []);
});

test("kit/README.md maps every source file of kit/src and no file that is gone", () => {
  const kitSrc = path.join(ROOT, "kit/src");
  const sources = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === "generated" ? [] : sources(full);
      return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path.relative(kitSrc, full)] : [];
    });
  const readme = read("kit/README.md");
  // The first cell of each table row: one or more backticked file names.
  const named = new Set<string>();
  for (const line of readme.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cell = line.split("|")[1];
    for (const m of cell.matchAll(/`([^`]+\.ts)`/g)) named.add(m[1]);
  }
  assert.deepEqual(
    sources(kitSrc)
      .filter((f) => !named.has(f))
      .sort(),
    [],
    "kit/src files without a line in kit/README.md",
  );
  assert.deepEqual(
    [...named].filter((f) => !fs.existsSync(path.join(kitSrc, f))).sort(),
    [],
    "kit/README.md names files kit/src does not have",
  );
});
