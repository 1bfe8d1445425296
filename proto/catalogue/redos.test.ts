/**
 * Regular-expression denial of service, as a class (issue 27): every pattern in the catalogue, in
 * input and output schemas, including `patternProperties` names, is proved to run in linear time by
 * recheck, the ReDoS analyser, with the `u` flag Ajv compiles it with; and every string a caller
 * sends that has a pattern or a format is bounded by `maxLength`, which the kit checks first
 * (kit/src/length-first.ts). The worst-case inputs themselves are timed in kit/src/redos.test.ts.
 *
 * Run: node --test proto/catalogue/redos.test.ts
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { check } from "recheck";
import { catalogue } from "./index.ts";
import { walkSchema } from "./schema-walk.ts";

/** Every pattern of the catalogue, with one place it is used. */
function cataloguePatterns(): Map<string, string> {
  const found = new Map<string, string>();
  for (const ability of catalogue) {
    for (const [schema, where] of [
      [ability.input, ability.id],
      [ability.output, `${ability.id}#output`],
    ] as const) {
      walkSchema(schema, where, (node, path) => {
        if (typeof node.pattern === "string" && !found.has(node.pattern)) found.set(node.pattern, path);
        const names = node.patternProperties;
        if (names && typeof names === "object") for (const name of Object.keys(names)) found.set(name, path);
      });
    }
  }
  return found;
}

test("every pattern in the catalogue runs in linear time (recheck finds no attack string)", async () => {
  const patterns = cataloguePatterns();
  assert.ok(patterns.size > 20, `only ${patterns.size} patterns found: is the walk still reaching them?`);
  const vulnerable: string[] = [];
  for (const [source, where] of patterns) {
    const diagnostics = await check(source, "u", { timeout: 20_000 });
    if (diagnostics.status === "vulnerable") {
      vulnerable.push(
        `${where}: /${source}/ is ${diagnostics.complexity.summary}; attack ${diagnostics.attack.pattern}`,
      );
    } else if (diagnostics.status === "unknown") {
      vulnerable.push(`${where}: /${source}/ could not be proved safe (${diagnostics.error.kind})`);
    }
  }
  assert.deepEqual(vulnerable, [], "rewrite these patterns so that no two parts can match the same text");
});

test("every string a caller sends that has a pattern or format is bounded by maxLength", () => {
  const unbounded: string[] = [];
  for (const ability of catalogue) {
    walkSchema(ability.input, ability.id, (node, path) => {
      if ((typeof node.pattern === "string" || typeof node.format === "string") && typeof node.maxLength !== "number") {
        unbounded.push(path);
      }
      if (node.propertyNames && typeof node.propertyNames === "object") {
        const names = node.propertyNames as { maxLength?: unknown };
        if (typeof names.maxLength !== "number") unbounded.push(`${path}/propertyNames`);
      }
    });
  }
  assert.deepEqual(unbounded, []);
});
