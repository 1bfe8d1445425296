/**
 * gateway/src has no import cycles (type-only imports included): a cycle makes module load order
 * matter and hides which module really depends on which.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith(".ts") ? [full] : [];
  });
}

test("no import cycles in gateway/src", () => {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const text = fs.readFileSync(file, "utf8");
    graph.set(
      file,
      [...text.matchAll(IMPORT)].map((m) => path.resolve(path.dirname(file), m[1] ?? m[2])),
    );
  }
  assert.ok(graph.size > 30, `found only ${graph.size} files under ${SRC}`);
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (!graph.has(dep)) continue;
      if (state.get(dep) === "open")
        cycles.push([...stack.slice(stack.indexOf(dep)), dep].map((f) => path.relative(SRC, f)).join(" → "));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});
