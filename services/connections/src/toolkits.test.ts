/**
 * The toolkit registry (src/toolkits.ts): the shipped toolkits load and their documents are valid
 * OpenAPI 3 (checked by @readme/openapi-parser), tools are pinned by version (each version runs the
 * operation of the document it names; an unknown version is 404, never the latest), input schemas
 * come from the operations, and a bad registry stops the start naming the toolkit.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { parseToolkitBaseUrls } from "./config.ts";
import { DEFAULT_TOOLKITS_DIR, loadRegistry, resolveTool } from "./toolkits.ts";

test("the shipped toolkits: three, each document valid OpenAPI 3", async () => {
  const registry = loadRegistry();
  assert.deepEqual([...registry.toolkits.keys()].sort(), ["github", "slack", "stripe"]);
  for (const slug of registry.toolkits.keys()) {
    for (const file of readdirSync(join(DEFAULT_TOOLKITS_DIR, slug)).filter((f) => f !== "toolkit.json")) {
      const doc = JSON.parse(readFileSync(join(DEFAULT_TOOLKITS_DIR, slug, file), "utf8"));
      assert.match(doc.openapi, /^3\./, `${slug}/${file}`);
      const result = await validate(doc);
      assert.ok(result.valid, `${slug}/${file}: ${result.valid ? "" : compileErrors(result)}`);
    }
  }
  const stripe = registry.toolkits.get("stripe")!.out;
  assert.equal(stripe.authScheme, "api_key");
  assert.deepEqual(stripe.credentialFields, ["secret_key"]);
  assert.equal(stripe.apiVersion, "2024-06-20");
  assert.equal(registry.toolkits.get("github")!.out.credentialFields.length, 0);
});

test("a tool id names exactly one version; an unknown version, tool or toolkit is 404 naming the field", () => {
  const registry = loadRegistry();
  const v1 = resolveTool(registry, "github.create_issue@1");
  const v2 = resolveTool(registry, "github.create_issue@2");
  assert.equal(v1.version, 1);
  assert.equal(v1.deprecated, true);
  assert.equal(v1.latest, false);
  assert.equal(v2.latest, true);
  // Version 1 is pinned to the older document: no `type` field; version 2 has it.
  assert.ok(!("type" in (v1.inputSchema.properties as object)));
  assert.ok("type" in (v2.inputSchema.properties as object));
  assert.deepEqual(v2.inputSchema.required, ["owner", "repo", "title"]);
  assert.equal(v2.method, "POST");
  assert.equal(v2.path, "/repos/{owner}/{repo}/issues");
  for (const [id, message] of [
    ["github.create_issue@3", /no version 3 \(versions: 1, 2\)/],
    ["github.delete_everything@1", /no tool delete_everything/],
    ["gitlab.create_issue@1", /not a toolkit/],
    ["not-a-tool-id", /not a tool id/],
  ] as const) {
    assert.throws(
      () => resolveTool(registry, id),
      (err: any) => err.code === "not_found" && err.details[0].path === "/input/toolId" && message.test(err.message),
      id,
    );
  }
  // Form-encoded bodies (Stripe) and query parameters become the input schema.
  const refund = resolveTool(registry, "stripe.create_refund@1");
  assert.equal(refund.method, "POST");
  assert.ok("charge" in (refund.inputSchema.properties as object));
  const charges = resolveTool(registry, "stripe.list_charges@1");
  assert.ok("limit" in (charges.inputSchema.properties as object));
});

test("a bad toolkit stops the start, naming it and the problem", () => {
  const dir = mkdtempSync(join(tmpdir(), "gantry-toolkits-"));
  try {
    cpSync(join(DEFAULT_TOOLKITS_DIR, "slack"), join(dir, "slack"), { recursive: true });
    const kit = JSON.parse(readFileSync(join(dir, "slack", "toolkit.json"), "utf8"));
    kit.tools[0].versions.push({ version: 2, operationId: "chat_deleteEverything" });
    writeFileSync(join(dir, "slack", "toolkit.json"), JSON.stringify(kit));
    assert.throws(() => loadRegistry(dir), /toolkits\/slack: tool post_message@2: no operation chat_deleteEverything/);
    kit.tools[0].versions.pop();
    kit.tools[0].versions.push({ version: 1, operationId: "chat_postMessage" });
    writeFileSync(join(dir, "slack", "toolkit.json"), JSON.stringify(kit));
    assert.throws(() => loadRegistry(dir), /versions must be distinct/);
    kit.tools[0].versions.pop();
    writeFileSync(join(dir, "slack", "toolkit.json"), JSON.stringify(kit));
    writeFileSync(join(dir, "slack", "openapi.json"), JSON.stringify({ swagger: "2.0", paths: {} }));
    assert.throws(() => loadRegistry(dir), /openapi\.json is not an OpenAPI 3 document/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("how tools run is checked at load: auth templates, verify tools, base URL overrides", () => {
  const registry = loadRegistry(DEFAULT_TOOLKITS_DIR, new Map([["stripe", "http://127.0.0.1:9"]]));
  const stripe = registry.toolkits.get("stripe")!;
  assert.deepEqual(stripe.auth, { header: "Authorization", value: "Bearer {secret_key}" });
  assert.equal(stripe.verify?.tool.id, "stripe.list_charges@1");
  assert.equal(resolveTool(registry, "stripe.create_refund@1").baseUrl, "http://127.0.0.1:9");
  assert.equal(resolveTool(registry, "stripe.create_refund@1").bodyEncoding, "form");
  assert.equal(resolveTool(registry, "github.create_issue@2").bodyEncoding, "json");
  assert.deepEqual(resolveTool(registry, "github.get_repo@1").parameters, [
    { name: "owner", in: "path" },
    { name: "repo", in: "path" },
  ]);
  assert.equal(registry.toolkits.get("github")!.auth?.value, "Bearer {access_token}");
  assert.throws(
    () => loadRegistry(DEFAULT_TOOLKITS_DIR, new Map([["gitlab", "https://x"]])),
    /CONNECTIONS_TOOLKIT_BASE_URLS.gitlab: no such toolkit/,
  );

  const dir = mkdtempSync(join(tmpdir(), "gantry-toolkits-"));
  try {
    cpSync(join(DEFAULT_TOOLKITS_DIR, "stripe"), join(dir, "stripe"), { recursive: true });
    const kit = JSON.parse(readFileSync(join(dir, "stripe", "toolkit.json"), "utf8"));
    const write = (k: unknown) => writeFileSync(join(dir, "stripe", "toolkit.json"), JSON.stringify(k));
    write({ ...kit, auth: undefined });
    assert.throws(() => loadRegistry(dir), /toolkits\/stripe: an api_key toolkit must state `auth`/);
    write({ ...kit, auth: { header: "Authorization", value: "Bearer {password}" } });
    assert.throws(() => loadRegistry(dir), /auth.value names \{password\}, not one of: secret_key/);
    write({ ...kit, verify: { tool: "create_refund" } });
    assert.throws(() => loadRegistry(dir), /verify.tool create_refund is not a GET tool/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("CONNECTIONS_TOOLKIT_BASE_URLS: https, or http on loopback only when allowed", () => {
  assert.deepEqual(
    [...parseToolkitBaseUrls('{"stripe": "https://stripe.internal.example/"}', false)],
    [["stripe", "https://stripe.internal.example"]],
  );
  assert.deepEqual(
    [...parseToolkitBaseUrls('{"stripe": "http://127.0.0.1:12111"}', true)],
    [["stripe", "http://127.0.0.1:12111"]],
  );
  assert.throws(() => parseToolkitBaseUrls('{"stripe": "http://127.0.0.1:12111"}', false), /stripe: must be https/);
  assert.throws(() => parseToolkitBaseUrls('{"stripe": "http://10.0.0.1"}', true), /stripe: must be https/);
  assert.throws(() => parseToolkitBaseUrls('{"stripe": 1}', false), /must be a URL string/);
  assert.throws(() => parseToolkitBaseUrls("[]", false), /must be a JSON object/);
});
