/**
 * No import cycles (type-only imports included) in gateway/src, kit/src or any services/<name>/src
 * (generated code left out): a cycle makes module load order matter and hides which module really
 * depends on which. Relative imports are followed across the trees too, so a cycle that runs
 * through two of them is found as well.
 *
 * A cycle is reported as its strongly connected component (every file in it, sorted), so the same
 * cycle reads the same whichever file the walk happened to start from.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/**
 * Known debt, each removed by the change that breaks its cycle (the test fails while a listed cycle
 * no longer exists, so the list only shrinks). Nothing may be added here: break a new cycle instead.
 */
const KNOWN_CYCLES: string[][] = [
  // Empty: memory's store/postgres.ts ↔ store/save-plan.ts and trust's context.ts ↔ receipts.ts
  // (with checkpoints.ts) were broken by their own changes (d15a943, 0c798d2).
];

function roots(): string[] {
  const services = fs
    .readdirSync(path.join(ROOT, "services"), { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(ROOT, "services", e.name, "src")))
    .map((e) => path.join(ROOT, "services", e.name, "src"));
  return [path.join(ROOT, "gateway/src"), path.join(ROOT, "kit/src"), ...services];
}

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "generated" || e.name === "node_modules" ? [] : sources(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

/** Strongly connected components of more than one file, or of one file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const dep of graph.get(file) ?? []) {
      if (!graph.has(dep)) continue;
      if (!index.has(dep)) {
        visit(dep);
        low.set(file, Math.min(low.get(file)!, low.get(dep)!));
      } else if (onStack.has(dep)) low.set(file, Math.min(low.get(file)!, index.get(dep)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    } while (top !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found.map((c) => c.map((f) => path.relative(ROOT, f)).sort());
}

test("no import cycles in gateway/src, kit/src or services/*/src beyond the listed known ones", () => {
  const graph = new Map<string, string[]>();
  for (const dir of roots())
    for (const file of sources(dir)) {
      const text = fs.readFileSync(file, "utf8");
      graph.set(
        file,
        [...text.matchAll(IMPORT)].map((m) => path.resolve(path.dirname(file), m[1] ?? m[2])),
      );
    }
  const counts = (tree: string) => [...graph.keys()].filter((f) => f.startsWith(path.join(ROOT, tree))).length;
  assert.ok(counts("gateway/src") > 30, "gateway/src was read");
  assert.ok(counts("kit/src") > 30, "kit/src was read");
  assert.ok(counts("services/workspace/src") > 10, "services/workspace/src was read");
  assert.ok(
    [...graph.keys()].every((f) => !f.split(path.sep).includes("generated")),
    "generated code is left out",
  );

  const key = (c: string[]) => c.join(" ↔ ");
  const known = new Set(KNOWN_CYCLES.map((c) => key([...c].sort())));
  const present = cycles(graph).map(key);
  assert.deepEqual(
    present.filter((c) => !known.has(c)),
    [],
    "new import cycles: break them (move what both sides need into a third module, or import the type from where it is declared)",
  );
  assert.deepEqual(
    [...known].filter((c) => !present.includes(c)),
    [],
    "a known cycle is gone: remove it from KNOWN_CYCLES in gateway/test/import-cycles.test.ts",
  );
});

test("the cycle finder reports a cycle as its whole component and ignores a one-way chain", () => {
  const f = (name: string) => path.join(ROOT, "x", name);
  const graph = new Map<string, string[]>([
    [f("a.ts"), [f("b.ts")]],
    [f("b.ts"), [f("c.ts")]],
    [f("c.ts"), [f("a.ts"), f("d.ts")]],
    [f("d.ts"), [f("e.ts")]],
    [f("e.ts"), []],
    [f("self.ts"), [f("self.ts")]],
  ]);
  assert.deepEqual(
    cycles(graph)
      .map((c) => c.join(","))
      .sort(),
    ["x/a.ts,x/b.ts,x/c.ts", "x/self.ts"],
  );
});
