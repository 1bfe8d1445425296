/**
 * Scope-crossing ORM batching, as a class (issue 27, item 7). Prisma batches the `findUnique` calls
 * made in one tick into one query, which runs on one connection under ONE caller's tenant scope
 * (kit/src/tenancy.ts): another call's row, or a system-scope webhook's, can come back missing and
 * its update be lost. `findFirst` is never batched, so it always runs in its own caller's scope.
 * This test refuses `findUnique`/`findUniqueOrThrow` anywhere in the services' and kit's source.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("no findUnique in the source: lookups use findFirst, which Prisma never batches across scopes", () => {
  const files = execFileSync("git", ["ls-files", "services/*/src/*.ts", "kit/src/*.ts", "gateway/src/*.ts"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((f) => f && !f.includes("/generated/") && !f.endsWith("prisma-scope.test.ts"));
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(`${root}/${file}`, "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/\.findUnique(?:OrThrow)?\(/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.ok(files.length > 100, `only ${files.length} files scanned`);
  assert.deepEqual(found, [], "use findFirst / findFirstOrThrow (same where on the unique fields)");
});
