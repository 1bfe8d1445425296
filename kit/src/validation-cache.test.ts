/**
 * The validator cache (GANTRY_VALIDATOR_CACHE, kit/src/validation.ts): the gateway's warm-up writes
 * every input validator once, as standalone code; a later process loads that file instead of
 * compiling, and its answers are the compiled validators' answers, details and defaults included.
 * Each case runs in a child process: the cache is read once per process.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "..", "..");

/** Inputs whose answers cover the keywords the catalogue uses: lengths (code points), patterns, formats, unions, defaults. */
const CASES: Array<[string, unknown]> = [
  ["contact.create", { name: "" }],
  ["contact.create", { name: "Ada\nObi", email: "not an email" }],
  ["contact.create", { name: "😀".repeat(200) }],
  ["contact.create", { name: "😀".repeat(201) }],
  ["contact.create", { name: "Ada", unknown: 1 }],
  ["contact.get", {}],
  ["contact.list", {}],
  ["email.render", { nope: 1 }],
  ["capability.discover", { query: 3 }],
  ["web.browse", { url: "ftp://x" }],
];

/** Warms (all abilities, or `ids`) in a child with `cache` (or none), then prints each case's answer. */
async function answers(cache: string | undefined, ids?: string[]): Promise<unknown[]> {
  const code = `
    import { validateInput, warmValidators } from "@gantry/kit/validation.ts";
    warmValidators(${ids ? JSON.stringify(ids) : ""});
    const out = [];
    for (const [id, input] of ${JSON.stringify(CASES)}) {
      try { validateInput(id, input); out.push({ ok: input }); } catch (err) { out.push({ details: err.details }); }
    }
    console.log(JSON.stringify(out));`;
  const env = { ...process.env, GANTRY_VALIDATOR_CACHE: cache };
  if (!cache) delete env.GANTRY_VALIDATOR_CACHE;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", code], { cwd: REPO, env });
  return JSON.parse(stdout);
}

const cached = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".js")) : []);

test("the gateway's warm-up writes the cache once; a process loading it answers as compiled validators do", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "validators-"));
  try {
    // A file an earlier catalogue left: the new one replaces it.
    fs.writeFileSync(path.join(dir, "input-validators-0123456789abcdef01234567.js"), "");
    const compiled = await answers(undefined);
    assert.ok(
      compiled.some((a) => "ok" in (a as object)),
      "some case passes (and gets its defaults)",
    );
    assert.deepEqual(await answers(dir), compiled, "answers while writing the cache");
    assert.equal(cached(dir).length, 1, "one file: the earlier catalogue's is gone");
    assert.ok(!cached(dir).includes("input-validators-0123456789abcdef01234567.js"));
    const [file] = cached(dir);
    const written = fs.statSync(path.join(dir, file)).mtimeMs;
    assert.deepEqual(await answers(dir), compiled, "answers from the cache");
    assert.deepEqual(await answers(dir, ["contact.create"]), compiled, "a service's warm-up, from the cache");
    assert.equal(fs.statSync(path.join(dir, file)).mtimeMs, written, "not written again");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a process with a cache uses the file's validators, and a service's warm-up does not write one", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "validators-"));
  try {
    await answers(dir, ["contact.get"]);
    assert.deepEqual(cached(dir), [], "only a warm-up of every ability writes the cache");
    await answers(dir);
    const [file] = cached(dir);
    // A validator only the file has: contact.get's answer must come from it.
    fs.appendFileSync(
      path.join(dir, file),
      `\nexports["contact.get"] = function v() { v.errors = [{ keyword: "required", instancePath: "", schemaPath: "#/required", params: { missingProperty: "fromTheCache" } }]; return false; };\n`,
    );
    const [, , , , , fromFile] = (await answers(dir)) as Array<{ details: Array<{ path: string }> }>;
    assert.deepEqual(
      fromFile.details.map((d) => d.path),
      ["/input/fromTheCache"],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
