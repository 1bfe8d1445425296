/**
 * One test layout in every service, as docs/development.md (*Tests*) states it (issue 31):
 *
 * - a test of one ability sits beside its handler, `src/abilities/<id>.test.ts`
 *   (`<id>.<aspect>.test.ts` for a further file), so every test there is named after a handler;
 * - every ability the catalogue gives a service is named by at least one test of that service, so a
 *   handler without a test is found by its id;
 * - `src/test/` holds only tests that span abilities (through the gateway stack), so each names at
 *   least two ability ids; a test of one ability belongs beside its handler instead.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { abilitiesOfService, abilityIds, type ServiceName } from "@gantry/proto/catalogue";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SERVICES = fs
  .readdirSync(path.join(ROOT, "services"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(ROOT, "services", entry.name, "src", "service.ts")))
  .map((entry) => entry.name)
  .sort();

const RULE = "docs/development.md, *Tests*";

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");

function testFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${path.sep}generated${path.sep}`))
    .sort();
}

/** The ability ids a source text names as a string literal. */
function namedIds(source: string, ids: readonly string[]): string[] {
  return ids.filter((id) => source.includes(`"${id}"`) || source.includes(`'${id}'`) || source.includes(`\`${id}\``));
}

/** Every way a service's tests break the layout, one sentence each saying where the file goes. */
function violations(service: string): Map<string, string> {
  const out = new Map<string, string>();
  const src = path.join(ROOT, "services", service, "src");
  const abilitiesDir = path.join(src, "abilities");
  const handlers = fs.existsSync(abilitiesDir)
    ? fs
        .readdirSync(abilitiesDir)
        .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
        .map((name) => name.slice(0, -".ts".length))
    : [];
  for (const file of testFiles(abilitiesDir)) {
    const stem = path.basename(file, ".test.ts");
    if (handlers.some((id) => stem === id || stem.startsWith(`${id}.`))) continue;
    out.set(
      rel(file),
      `${rel(file)} is named after no handler in ${rel(abilitiesDir)}/: name it <id>.test.ts or <id>.<aspect>.test.ts after the one handler it tests, move it beside the module as src/<module>.test.ts if it tests a module, or to src/test/ if it spans abilities (${RULE})`,
    );
  }
  for (const file of testFiles(path.join(src, "test"))) {
    const ids = namedIds(fs.readFileSync(file, "utf8"), abilityIds);
    if (ids.length >= 2) continue;
    const where =
      ids.length === 1
        ? `it tests ${ids[0]} alone: move it beside the handler as src/abilities/${ids[0]}.test.ts (or ${ids[0]}.<aspect>.test.ts), or beside the module it checks as src/<module>.test.ts`
        : "it names no ability: move it beside the module it tests as src/<module>.test.ts";
    out.set(
      rel(file),
      `${rel(file)} is in src/test/, which holds tests spanning two or more abilities; ${where} (${RULE})`,
    );
  }
  // Elsewhere in src/ a test is a module's, named after it (<module>.test.ts or <module>.<aspect>.test.ts
  // for a src/**/<module>.ts or folder), or a test of rules that call no ability, named after what it
  // checks (domain.test.ts, schema.test.ts). One that calls abilities under another name is misplaced.
  const modules = new Set(
    fs
      .readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((entry) => !entry.name.endsWith(".test.ts") && (entry.isDirectory() || entry.name.endsWith(".ts")))
      .map((entry) => entry.name.replace(/\.ts$/, "")),
  );
  for (const file of testFiles(src)) {
    const folder = path.relative(src, file).split(path.sep)[0];
    if (folder === "abilities" || folder === "test") continue;
    const stem = path.basename(file, ".test.ts");
    if (modules.has(stem) || modules.has(stem.split(".")[0])) continue;
    const ids = namedIds(fs.readFileSync(file, "utf8"), abilityIds);
    if (ids.length === 0) continue;
    const where =
      ids.length === 1
        ? `it tests ${ids[0]}: move it beside the handler as src/abilities/${ids[0]}.<aspect>.test.ts`
        : `it tests ${ids.length} abilities: move it to src/test/${path.basename(file)}`;
    out.set(rel(file), `${rel(file)} is named after no module in ${rel(src)}/; ${where} (${RULE})`);
  }
  return out;
}

test("every service's tests follow the one layout", () => {
  const problems: string[] = [];
  for (const service of SERVICES) problems.push(...violations(service).values());
  assert.deepEqual(problems, []);
});

test("every ability a service owns is named by at least one of the service's tests", () => {
  const untested: string[] = [];
  for (const service of SERVICES) {
    const sources = testFiles(path.join(ROOT, "services", service, "src")).map((file) => fs.readFileSync(file, "utf8"));
    for (const { id } of abilitiesOfService(service as ServiceName)) {
      if (!sources.some((source) => namedIds(source, [id]).length > 0)) {
        untested.push(
          `${id} (services/${service}) has no test naming it: add services/${service}/src/abilities/${id}.test.ts`,
        );
      }
    }
  }
  assert.deepEqual(untested, []);
});

test("an ability counts as named by a test only as a string literal, not in prose", () => {
  const ids = ["contact.get", "contact.list"];
  assert.deepEqual(namedIds(`s.call("contact.get", {})`, ids), ["contact.get"]);
  assert.deepEqual(namedIds("ok(t, 'contact.list', {}) and contact.get in prose", ids), ["contact.list"]);
});
