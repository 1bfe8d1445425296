/**
 * /openapi.json: OpenAPI 3.1 that a real validator (@readme/openapi-parser, which validates against
 * the official 3.1 schema plus semantic checks such as unique operationIds) accepts, covering every
 * ability path, the execute envelope, the envelope and ErrorResponse schemas, the security scheme
 * and examples that are themselves valid. The served document is checked in discovery.test.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileErrors, dereference, validate } from "@readme/openapi-parser";
import { catalogue } from "@gantry/proto/catalogue";
import { createAjv } from "@gantry/kit";
import { buildOpenApi, operationId } from "../src/docs/openapi.ts";

const options = {
  baseUrl: "https://api.example.test",
  version: "0.1.0+abc123",
  maxBodyBytes: 1_048_576,
  rateLimit: { limit: 600, windowSeconds: 60 },
};
type Doc = Record<string, any>;
const doc = buildOpenApi(options) as Doc;

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
});
