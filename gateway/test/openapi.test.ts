/**
 * /openapi.json: OpenAPI 3.1 that a real validator (@readme/openapi-parser, which validates against
 * the official 3.1 schema plus semantic checks such as unique operationIds) accepts, covering every
 * ability path, the execute envelope, the envelope and ErrorResponse schemas, the security scheme
 * and examples that are themselves valid. The served document is checked in discovery.test.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compileErrors, dereference, validate } from "@readme/openapi-parser";
import { catalogue, type JsonSchema } from "@gantry/proto/catalogue";
import { createAjv, DETAIL_CODE_LIST, DETAIL_CODES, ERROR_CODES } from "@gantry/kit";
import { buildOpenApi, operationId, outputSchemaOf } from "../src/docs/openapi.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const options = {
  baseUrl: "https://api.example.test",
  version: "0.1.0+abc123",
  maxBodyBytes: 1_048_576,
  rateLimit: { limit: 600, windowSeconds: 60 },
};
type Doc = Record<string, any>;
const doc = buildOpenApi(options) as Doc;

/** The JSON Schema keywords the catalogue's input schemas can fail with, i.e. the `keyword`s Ajv may report. */
function catalogueKeywords(): Set<string> {
  // Keywords Ajv reports as `keyword` of a failure (applicators like allOf/properties report their subschemas' errors).
  const asserting = new Set([
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "additionalProperties",
    "propertyNames",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependencies",
  ]);
  const used = new Set<string>();
  const walk = (schema: unknown): void => {
    if (schema === false) used.add("false schema");
    if (typeof schema !== "object" || schema === null) return;
    const s = schema as JsonSchema;
    for (const [k, v] of Object.entries(s)) {
      if (asserting.has(k) && !(k === "additionalProperties" && v !== false)) used.add(k);
      if (["properties", "patternProperties", "$defs", "dependentSchemas"].includes(k))
        for (const sub of Object.values(v as object)) walk(sub);
      else if (["anyOf", "oneOf", "allOf", "prefixItems"].includes(k)) for (const sub of v as unknown[]) walk(sub);
      // `additionalProperties: false` fails as "additionalProperties" (counted above), not as a false schema.
      else if (k === "additionalProperties" && v !== false) walk(v);
      else if (["items", "propertyNames", "not", "if", "then", "else", "contains"].includes(k)) walk(v);
    }
  };
  for (const a of catalogue) walk(a.input);
  return used;
}

describe("OpenAPI 3.1 document", () => {
  test("validates with a real OpenAPI validator", async () => {
    const result = await validate(structuredClone(doc) as never);
    assert.equal(result.valid, true, result.valid ? "" : compileErrors(result));
    assert.equal(result.warnings.length, 0, JSON.stringify(result.warnings));
  });

  test("the validator is not a rubber stamp: a broken copy fails", async () => {
    const broken = structuredClone(doc);
    delete broken.info.version;
    broken.paths["/v1/abilities/contact.create"].post.responses["200"] = { content: {} }; // no description
    const result = await validate(broken as never);
    assert.equal(result.valid, false);
  });

  test("declares 3.1, the interface version 0.1.0+<build>, the server and bearer security", () => {
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "0.1.0+abc123");
    assert.deepEqual(doc.servers, [{ url: "https://api.example.test" }]);
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      ...doc.components.securitySchemes.bearerAuth,
      type: "http",
      scheme: "bearer",
    });
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  });

  test("every ability has its POST path with request schema, example and the error responses", () => {
    for (const a of catalogue) {
      const op = doc.paths[`/v1/abilities/${a.id}`]?.post;
      assert.ok(op, `no path for ${a.id}`);
      assert.equal(op.operationId, operationId(a.id));
      assert.deepEqual(op.requestBody.content["application/json"].examples.example.value, { input: a.example });
      for (const status of ["200", "400", "401", "403", "404", "409", "413", "415", "429", "501", "503", "default"])
        assert.ok(op.responses[status], `${a.id} lacks ${status}`);
    }
    assert.equal(
      Object.keys(doc.paths).filter((p) => p.startsWith("/v1/abilities/") && p !== "/v1/abilities/{id}").length,
      79,
    );
  });

  test("the execute envelope is a oneOf over every ability, discriminated by `ability`", () => {
    const exec = doc.components.schemas.ExecuteRequest;
    assert.equal(exec.oneOf.length, 79);
    assert.equal(exec.discriminator.propertyName, "ability");
    assert.deepEqual(Object.keys(exec.discriminator.mapping).sort(), catalogue.map((a) => a.id).sort());
    assert.ok(doc.paths["/abilities/execute"].post.requestBody.content["application/json"].schema);
  });

  test("envelope and ErrorResponse schemas follow spec §2.3/§2.4", () => {
    const { AbilityResult, ErrorResponse } = doc.components.schemas;
    assert.deepEqual(AbilityResult.required, ["ok", "ability", "result", "duration"]);
    for (const f of ["ok", "error", "ability", "reason", "details", "retryAfterMs"])
      assert.ok(ErrorResponse.properties[f], `ErrorResponse.${f}`);
    assert.ok(ErrorResponse.required.includes("ok") && ErrorResponse.required.includes("error"));
  });

  test("every example validates against its schema (requests, and error examples against ErrorResponse)", async () => {
    const deref = (await dereference(structuredClone(doc) as never)) as Doc;
    const ajv = createAjv();
    const errorSchema = ajv.compile(deref.components.schemas.ErrorResponse);
    for (const a of catalogue) {
      const op = deref.paths[`/v1/abilities/${a.id}`].post;
      const media = op.requestBody.content["application/json"];
      const check = ajv.compile(media.schema);
      assert.ok(check(structuredClone(media.examples.example.value)), `${a.id}: ${JSON.stringify(check.errors)}`);
      const success = op.responses["200"].content["application/json"];
      const checkSuccess = ajv.compile(success.schema);
      for (const ex of Object.values((success.examples ?? {}) as Record<string, { value: unknown }>))
        assert.ok(checkSuccess(ex.value), `${a.id} 200 example: ${JSON.stringify(checkSuccess.errors)}`);
      for (const [status, resp] of Object.entries(op.responses as Record<string, any>)) {
        if (status === "200") continue;
        for (const ex of Object.values(
          (resp.content?.["application/json"]?.examples ?? {}) as Record<string, { value: unknown }>,
        )) {
          assert.ok(errorSchema(ex.value), `${a.id} ${status}: ${JSON.stringify(errorSchema.errors)}`);
        }
      }
      const validation = op.responses["400"].content["application/json"].examples;
      assert.ok(Object.values(validation).length > 0);
    }
  });

  test("a real validation error is the 400 example where the input has required fields", () => {
    const op = doc.paths["/v1/abilities/lesson.record"].post;
    const ex = op.responses["400"].content["application/json"].examples.validation.value;
    assert.equal(ex.code, "validation_failed");
    assert.ok(ex.details.some((d: { path: string }) => d.path === "/input/title"));
  });

  test("every ability's 200 is its own envelope: `ability` fixed, `result` its output schema", () => {
    const schemas = doc.components.schemas;
    for (const a of catalogue) {
      const ok = doc.paths[`/v1/abilities/${a.id}`].post.responses["200"].content["application/json"];
      assert.deepEqual(ok.schema, { $ref: `#/components/schemas/AbilityResult.${a.id}` });
      const envelope = schemas[`AbilityResult.${a.id}`];
      assert.deepEqual(envelope.required, ["ok", "ability", "result", "duration"]);
      assert.equal(envelope.additionalProperties, false);
      assert.deepEqual(envelope.properties.ability, { const: a.id, description: "Id of the ability that ran." });
      assert.deepEqual(envelope.properties.result, { $ref: `#/components/schemas/AbilityOutput.${a.id}` });
      const { title, ...output } = schemas[`AbilityOutput.${a.id}`];
      assert.equal(title, `${a.id} result`);
      assert.deepEqual(output, outputSchemaOf(a));
      if (a.output) assert.deepEqual(output, a.output);
    }
    const exec = doc.paths["/abilities/execute"].post.responses["200"].content["application/json"].schema;
    assert.deepEqual(exec, { $ref: "#/components/schemas/ExecuteResult" });
    assert.equal(schemas.ExecuteResult.oneOf.length, 79);
    assert.equal(schemas.ExecuteResult.discriminator.propertyName, "ability");
  });

  test("ErrorResponse: `code` is the closed ERROR_CODES enum, `details[].code` the closed DETAIL_CODES enum", () => {
    const { ErrorResponse, ErrorDetail, DetailCode } = doc.components.schemas;
    assert.deepEqual(ErrorResponse.properties.code.enum, ERROR_CODES);
    assert.equal(ErrorResponse.additionalProperties, false);
    assert.deepEqual(ErrorResponse.properties.details.items, { $ref: "#/components/schemas/ErrorDetail" });
    assert.deepEqual(ErrorDetail.properties.code, { $ref: "#/components/schemas/DetailCode" });
    assert.ok(ErrorDetail.required.includes("code"));
    assert.deepEqual(DetailCode.enum, DETAIL_CODE_LIST);
    assert.deepEqual(DETAIL_CODE_LIST, Object.keys(DETAIL_CODES));
    for (const code of DETAIL_CODE_LIST) {
      assert.match(DETAIL_CODES[code], /^\S.*\.$/, `${code}: a one-line meaning`);
      assert.ok(DetailCode.description.includes(`\`${code}\`: ${DETAIL_CODES[code]}`), `${code} is documented`);
    }
  });

  test("the vocabulary covers every JSON Schema keyword the catalogue's input schemas can fail with", () => {
    const used = catalogueKeywords();
    assert.ok(used.size >= 10, `found only ${[...used].join(", ")}`);
    const missing = [...used].filter((k) => !DETAIL_CODE_LIST.includes(k as never));
    assert.deepEqual(missing, [], `input schemas use keywords missing from DETAIL_CODES: ${missing.join(", ")}`);
  });

  test("the vocabulary covers every detail code the gateway, kit and services emit (source scan)", () => {
    const files: string[] = [];
    const walkDir = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.name === "node_modules" || e.name === "generated" || e.name.startsWith(".")) continue;
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walkDir(full);
        else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.endsWith(".suite.ts"))
          files.push(full);
      }
    };
    walkDir(path.join(ROOT, "kit/src"));
    walkDir(path.join(ROOT, "gateway/src"));
    for (const svc of fs.readdirSync(path.join(ROOT, "services"))) {
      const src = path.join(ROOT, "services", svc, "src");
      if (fs.existsSync(src)) walkDir(src);
    }
    const emitted = new Map<string, string>();
    const patterns = [
      /\bcode:\s*"([^"]+)"/g, // { path, message, code: "invalid_cursor" }
      /\bcode:\s*[^,}\n]*\?\s*"([^"]+)"\s*:\s*"[^"]+"/g, // code: cond ? "a" : "b"
      /\bcode:\s*[^,}\n]*\?\s*"[^"]+"\s*:\s*"([^"]+)"/g,
      // workspace invalidField(path, message, code); kit money refuse(path, message, short, code); content invalid(…)
      /\b(?:invalidField|refuse|invalid)\((?:[^()]|\([^()]*\))*?,\s*"([a-z_]+)",?\s*\)/g,
      /\.add\(\s*[^,;\n]+?,\s*"([a-z_A-Z]+)"\s*,/g, // manifest lint: this.add(path, code, message)
    ];
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      for (const re of patterns) for (const m of text.matchAll(re)) emitted.set(m[1], path.relative(ROOT, file));
    }
    for (const known of ["invalid_cursor", "nul_character", "exceeds_caller", "key_expired", "blank", "unguarded"])
      assert.ok(emitted.has(known), `the scan should find ${known}`);
    const missing = [...emitted].filter(([code]) => !DETAIL_CODE_LIST.includes(code as never));
    assert.deepEqual(missing, [], "codes emitted but missing from DETAIL_CODES (kit/src/errors.ts)");
    // …and nothing in it is dead: each code is emitted somewhere or a keyword the input schemas use.
    const keywords = catalogueKeywords();
    const unused = DETAIL_CODE_LIST.filter((code) => !emitted.has(code) && !keywords.has(code));
    assert.deepEqual(unused, [], "DETAIL_CODES lists codes nothing emits");
  });
});
