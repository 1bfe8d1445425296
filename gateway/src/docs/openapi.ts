/**
 * @module gateway/docs/openapi
 * The OpenAPI 3.1 description served at `/openapi.json`, generated from the catalogue: one
 * `POST /v1/abilities/{id}` path per ability (its input JSON Schema as a component, a realistic
 * example, its 200 envelope whose `result` is the ability's output schema, and the error responses
 * of spec §7 with examples), the generic `POST /abilities/execute` envelope (request and 200 are
 * each a `oneOf` over every ability, discriminated by `ability`), discovery, docs and MCP, the
 * ErrorResponse schema (closed `code` enum from kit's ERROR_TABLE, closed `details[].code` enum
 * from kit's DETAIL_CODES) and the bearer security scheme. OpenAPI 3.1 schemas are JSON Schema
 * 2020-12, the catalogue's dialect, so input and output schemas are embedded unchanged.
 * `info.version` is the interface version `0.1.0+<build>` (spec §9.3).
 */
import {
  AREA_NAMES,
  AREAS,
  abilityById,
  areas,
  catalogue,
  decisions,
  type AbilityDef,
  type JsonSchema,
} from "@gantry/proto/catalogue";
import { DETAIL_CODE_LIST, DETAIL_CODES, ERROR_CODES, type ErrorDetail, GantryError, validateInput } from "@gantry/kit";
import { errorBody } from "../pipeline/outcome.ts";
import { IDEMPOTENCY_HEADER_DOC, takesIdempotencyKey } from "../pipeline/idempotency-header.ts";

export interface OpenApiOptions {
  baseUrl: string;
  version: string;
  maxBodyBytes: number;
  rateLimit: { limit: number; windowSeconds: number };
}

/** camelCase operation id from an ability id: `integration.app.connect` → `integrationAppConnect`. */
export function operationId(id: string): string {
  return id
    .split(/[._]/)
    .map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1)))
    .join("");
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A `/mcp` answer outside MCP itself: a JSON-RPC error object, not an ErrorResponse. */
const rpcError = (description: string) => ({
  description,
  content: { "application/json": { schema: ref("JsonRpcError") } },
});
const resp = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** What an ability call can answer besides 200 and 400, the same on both call paths (spec §7). */
const CALL_ERRORS = {
  "401": resp("Unauthorized"),
  "403": resp("Forbidden"),
  "404": resp("NotFound"),
  "409": resp("Conflict"),
  "413": resp("PayloadTooLarge"),
  "415": resp("UnsupportedMediaType"),
  "429": resp("TooManyRequests"),
  "501": resp("NotImplemented"),
  "503": resp("Unavailable"),
  default: resp("ServerError"),
};

/** A real validation error for an ability: what the gateway answers for an input missing its fields. */
function validationExample(def: AbilityDef, baseRequestId: string): unknown {
  const bad: Record<string, unknown> =
    Object.keys((def.input.properties ?? {}) as object).length === 0 ? { unexpected: true } : {};
  try {
    validateInput(def.id, structuredClone(bad));
    return undefined;
  } catch (err) {
    return err instanceof GantryError ? errorBody(err, baseRequestId, def.id) : undefined;
  }
}

/** The result schema of an ability: its catalogue `output`, or (while an entry has none) any JSON value. */
export function outputSchemaOf(def: AbilityDef): JsonSchema {
  return def.output ?? { description: `Return value of ${def.id}; the catalogue does not state its shape yet.` };
}

const SAMPLE_STRINGS: Record<string, string> = {
  "date-time": "2026-05-04T09:30:00.000Z",
  date: "2026-05-04",
  email: "ada@example.com",
  uri: "https://example.com/",
};

/**
 * A value of a result schema for the 200 example: every required field, the first allowed value,
 * null where null is allowed, the fewest list items. Undefined when the schema has a rule it does
 * not know how to meet (a pattern, a `$ref`): no example is better than a wrong one. The tests
 * check every example it makes against its schema.
 */
export function sampleOf(schema: JsonSchema): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.$ref !== undefined || schema.not !== undefined) return undefined;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(variants)) {
    if (variants.some((v) => v.type === "null")) return null;
    for (const v of variants) {
      const x = sampleOf({ ...schema, anyOf: undefined, oneOf: undefined, ...v });
      if (x !== undefined) return x;
    }
    return undefined;
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const type = types.includes("null") ? "null" : types[0];
  switch (type) {
    case "null":
      return null;
    case "boolean":
      return true;
    case "integer":
    case "number": {
      if (typeof schema.minimum === "number") return schema.minimum;
      if (typeof schema.exclusiveMinimum === "number") return schema.exclusiveMinimum + 1;
      return typeof schema.maximum === "number" ? Math.min(0, schema.maximum) : 0;
    }
    case "string": {
      if (schema.pattern !== undefined) return undefined;
      const format = schema.format as string | undefined;
      if (format) return SAMPLE_STRINGS[format];
      const min = typeof schema.minLength === "number" ? schema.minLength : 0;
      return "string".padEnd(min, "s");
    }
    case "array": {
      const min = typeof schema.minItems === "number" ? schema.minItems : 0;
      if (min === 0) return [];
      const item = sampleOf((schema.items ?? {}) as JsonSchema);
      return item === undefined ? undefined : Array.from({ length: min }, () => structuredClone(item));
    }
    case "object":
    case undefined: {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const out: Record<string, unknown> = {};
      for (const name of (schema.required ?? []) as string[]) {
        const prop = props[name];
        if (prop === undefined) return undefined;
        const v = sampleOf(prop);
        if (v === undefined) return undefined;
        out[name] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

function errorExample(
  code: GantryError["code"],
  message: string,
  extra: { reason?: string; retryAfterMs?: number; details?: ErrorDetail[] } = {},
  ability?: string,
) {
  return errorBody(new GantryError(code, message, extra), "req_4Xc9TqL2mB7nR1pV8sK0aZ", ability);
}

function abilityOperation(def: AbilityDef): JsonSchema {
  const decision = decisions[def.id];
  const description = [
    def.summary,
    def.inputSource === "ours"
      ? 'The spec leaves this input "not shown"; the shape below is Gantry\'s documented decision.'
      : "Input fields as given by the spec (§4.3).",
    decision ? `Decision: ${decision}` : "",
    `Owned by the ${def.service} service. Every call is validated against the input schema, attributed to the key's tenant, rate limited per key and audited; the \`X-Request-Id\` of the response is the audit record's id.`,
  ]
    .filter(Boolean)
    .join("\n\n");
  const validation = validationExample(def, "req_7Hq2WbN5xT9cL3vR0mP4sD");
  const idempotent = takesIdempotencyKey(def.input);
  const sample = def.output ? sampleOf(def.output) : {};
  return {
    post: {
      operationId: operationId(def.id),
      tags: [def.area],
      summary: def.summary,
      description,
      ...(idempotent
        ? {
            parameters: [
              {
                name: "Idempotency-Key",
                in: "header",
                required: false,
                description: IDEMPOTENCY_HEADER_DOC,
                schema: { type: "string", minLength: 1, maxLength: 255 },
              },
            ],
          }
        : {}),
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: ref(`AbilityRequest.${def.id}`),
            examples: { example: { summary: `A ${def.id} call`, value: { input: def.example } } },
          },
        },
      },
      responses: {
        "200": {
          description: `${def.id} ran; \`result\` is its return value (\`AbilityOutput.${def.id}\`).`,
          headers: {
            "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
            RateLimit: { $ref: "#/components/headers/RateLimit" },
            "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
            ...(idempotent ? { "Idempotent-Replayed": { $ref: "#/components/headers/Idempotent-Replayed" } } : {}),
          },
          content: {
            "application/json": {
              schema: ref(`AbilityResult.${def.id}`),
              ...(sample === undefined
                ? {}
                : {
                    examples: {
                      success: {
                        summary: `Success envelope; \`result\` follows AbilityOutput.${def.id}`,
                        value: { ok: true, ability: def.id, result: sample, duration: 4.271 },
                      },
                    },
                  }),
            },
          },
        },
        "400": validation
          ? {
              description:
                "The body lacks `input`, is not JSON, or the input fails the schema or holds a NUL character, U+0000 (`details` lists every error).",
              headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
              content: {
                "application/json": {
                  schema: ref("ErrorResponse"),
                  examples: { validation: { summary: "Input failing the schema", value: validation } },
                },
              },
            }
          : resp("BadRequest"),
        ...CALL_ERRORS,
      },
    },
  };
}

function errorResponses(o: OpenApiOptions): JsonSchema {
  const withId = { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } };
  const one = (description: string, examples: Record<string, unknown>, headers: JsonSchema = withId) => ({
    description,
    headers,
    content: {
      "application/json": {
        schema: ref("ErrorResponse"),
        examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, { value: v }])),
      },
    },
  });
  return {
    BadRequest: one(
      "The body is not a JSON object with `input`, is malformed JSON, or the input fails the ability's schema or holds a NUL character (U+0000).",
      {
        missingInput: errorExample(
          "invalid_request",
          '/input is required: send {"input": {...}} (an empty object when the ability takes no input)',
        ),
        malformedJson: errorExample(
          "invalid_json",
          "The request body is not valid JSON: Unexpected end of JSON input.",
        ),
      },
    ),
    Unauthorized: one(
      "No bearer credential, or one that is not recognised, revoked or expired.",
      {
        missing: errorExample("unauthorized", "Missing credential: send Authorization: Bearer <API key>."),
      },
      {
        ...withId,
        "WWW-Authenticate": { schema: { type: "string" }, description: '`Bearer realm="Gantry"` on /mcp.' },
      },
    ),
    Forbidden: one(
      "The key is valid but its scopes exclude the ability (or it sent `context.tenantId` without the sub-tenant flag).",
      {
        scope: errorExample(
          "forbidden",
          "This key's scopes do not include contact.create.",
          { reason: 'Call with a key whose scopes include "contact.create", "contact.*" or "*".' },
          "contact.create",
        ),
      },
    ),
    NotFound: one(
      "`details[].code` tells them apart: `ability_not_found` (the spec's 404: no ability has the requested id), `record_not_found` (the ability exists; the record the input names at `details[].path` does not exist for this tenant), `route_not_found` (no gateway route).",
      {
        unknownAbility: errorExample("unknown_ability", 'No ability has the id "contact.nope".', {
          reason: "GET /v1/abilities lists the abilities this key may call.",
          details: [{ path: "/path/id", message: 'No ability has the id "contact.nope"', code: "ability_not_found" }],
        }),
        missingRecord: errorExample(
          "not_found",
          "/input/id does not name a contact of this tenant.",
          {
            details: [
              {
                path: "/input/id",
                message: "/input/id does not name a contact of this tenant",
                code: "record_not_found",
              },
            ],
          },
          "contact.get",
        ),
      },
    ),
    Conflict: one("The input conflicts with the current state, e.g. an idempotencyKey reused with a different input.", {
      idempotency: errorExample(
        "conflict",
        "idempotencyKey was already used with a different input.",
        {},
        "contact.create",
      ),
    }),
    PayloadTooLarge: one(`The body exceeds ${o.maxBodyBytes} bytes.`, {
      tooLarge: errorExample("payload_too_large", `The request body exceeds the limit of ${o.maxBodyBytes} bytes.`, {
        reason: "Send less data per call, or split the work into several calls.",
      }),
    }),
    UnsupportedMediaType: one("The body is not `application/json`.", {
      notJson: errorExample("unsupported_media_type", 'Content-Type must be application/json (got "text/plain").'),
    }),
    TooManyRequests: one(
      `Too many requests for this key (default ${o.rateLimit.limit} per ${o.rateLimit.windowSeconds} s; keys may carry their own limit). Wait \`retryAfterMs\`.`,
      {
        limited: errorExample(
          "rate_limited",
          `Rate limit of ${o.rateLimit.limit} requests per ${o.rateLimit.windowSeconds} s exceeded for this key.`,
          { retryAfterMs: 12000 },
          "contact.create",
        ),
      },
      {
        ...withId,
        "Retry-After": { $ref: "#/components/headers/Retry-After" },
        RateLimit: { $ref: "#/components/headers/RateLimit" },
        "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
      },
    ),
    NotImplemented: one("The ability is declared but no handler is wired yet.", {
      notWired: errorExample("not_implemented", "web.browse is declared but not wired yet.", {}, "web.browse"),
    }),
    Unavailable: one(
      "The service owning the ability is not reachable; retry after `retryAfterMs`.",
      {
        ownerDown: errorExample(
          "unavailable",
          "The workspace service is unavailable; retry shortly.",
          {
            reason: "contact.create is owned by the workspace service, which is not reachable right now.",
            retryAfterMs: 1000,
          },
          "contact.create",
        ),
      },
      { ...withId, "Retry-After": { $ref: "#/components/headers/Retry-After" } },
    ),
    ServerError: one(
      "The ability failed. The message is sanitized; quote the X-Request-Id. A 5xx may be a transient upstream failure.",
      {
        internal: errorExample("internal", "internal error", {}, "contact.create"),
      },
    ),
  };
}

function schemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {
    CallContext: {
      type: "object",
      additionalProperties: false,
      description: "Optional call context (spec §2.2). The tenant always comes from the key.",
      properties: {
        tenantId: {
          type: "string",
          pattern: "^[a-z0-9][a-z0-9_-]{0,62}$",
          description:
            "Sub-tenant to act for; only for keys with the sub-tenant flag, nested under the key's tenant (`acme` + `shop1` → `acme/shop1`). From other keys: 403.",
        },
        runId: {
          type: "string",
          pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$",
          description: "The trust run (from trust.preflight) this call executes under.",
        },
        verticalId: {
          type: "string",
          pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$",
          description: "Vertical to which created records are attributed.",
        },
      },
    },
    AbilityResult: {
      type: "object",
      additionalProperties: false,
      description:
        "HTTP 200 body (spec §2.3), for any ability. `AbilityResult.<id>` is the same envelope with `ability` fixed and `result` typed by the ability's output schema (`AbilityOutput.<id>`).",
      required: ["ok", "ability", "result", "duration"],
      properties: {
        ok: { const: true, description: "Success flag." },
        ability: { type: "string", description: "Id of the ability that ran." },
        result: { description: "Return value; `AbilityOutput.<id>` states its shape for each ability." },
        duration: { type: "number", minimum: 0, description: "Server-side execution time in milliseconds." },
      },
    },
    DetailCode: {
      type: "string",
      enum: [...DETAIL_CODE_LIST],
      description: [
        "What one detail of an ErrorResponse is about (a closed set: kit/src/errors.ts `DETAIL_CODES`). JSON Schema keywords name the input rule that failed; the others are rules a service checks:",
        "",
        ...DETAIL_CODE_LIST.map((c) => `- \`${c}\`: ${DETAIL_CODES[c]}`),
      ].join("\n"),
    },
    ErrorDetail: {
      type: "object",
      description:
        "One problem at one place. Besides `path`, `message` and `code`, a detail may carry context for its code (`params` of the failing JSON Schema keyword, `allowed`, `currentVersion`, `limit`, …).",
      required: ["path", "message", "code"],
      properties: {
        path: { type: "string", description: "JSON Pointer into the request, e.g. `/input/email`." },
        message: { type: "string", description: "What is wrong and what would be accepted." },
        code: ref("DetailCode"),
        params: { type: "object", description: "For JSON Schema keywords: the keyword's parameters (Ajv)." },
      },
    },
    ErrorResponse: {
      type: "object",
      additionalProperties: false,
      description: "Body of every non-200 response (spec §2.4), plus `code` (closed set) and `requestId`.",
      required: ["ok", "error", "code", "requestId"],
      properties: {
        ok: { const: false, description: "Failure flag." },
        error: { type: "string", description: "Error message (sanitized for 5xx)." },
        code: {
          type: "string",
          enum: [...ERROR_CODES],
          description: "Machine-readable error code; one table maps it to the HTTP status.",
        },
        ability: { type: "string", description: "Ability id, when known." },
        reason: { type: "string", description: "What to do about it." },
        details: {
          type: "array",
          items: ref("ErrorDetail"),
          description: "Every problem found (4xx only): schema validation errors and the rules services check.",
        },
        retryAfterMs: { type: "number", minimum: 0, description: "Milliseconds to wait before retrying (429, 503)." },
        requestId: { type: "string", description: "Same as the X-Request-Id header: the audit record's id." },
      },
    },
    JsonRpcError: {
      type: "object",
      description:
        "A JSON-RPC 2.0 error response: what `/mcp` answers when a request is refused before MCP handles it.",
      required: ["jsonrpc", "error"],
      properties: {
        jsonrpc: { const: "2.0" },
        id: {
          type: ["string", "number", "null"],
          description: "The request's id when it could be read (JSON-RPC allows any number), else null.",
        },
        error: {
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
        },
      },
    },
    AbilityInfo: {
      type: "object",
      description: "One ability as discovery presents it.",
      required: ["id", "area", "description", "method", "path", "input", "example", "status", "live"],
      properties: {
        id: { type: "string" },
        area: { type: "string" },
        description: { type: "string" },
        inputSource: { type: "string", enum: ["spec", "ours"] },
        method: { const: "POST" },
        path: { type: "string" },
        input: { type: "object", description: "Input JSON Schema (draft 2020-12)." },
        example: { type: "object" },
        status: {
          type: "string",
          enum: ["live", "needs_configuration", "not_wired", "unavailable"],
          description:
            "live: runs now (except a part listed in needs); needs_configuration: answers 501 until the operator sets needs[].variables; not_wired: answers 501; unavailable: owner down, answers 503.",
        },
        live: { type: "boolean" },
        needs: {
          type: "array",
          description:
            "What it still needs on this deployment; empty when everything runs. part null: the whole ability; otherwise one part of a live ability (e.g. channel sms).",
          items: {
            type: "object",
            required: ["part", "status", "variables", "message"],
            properties: {
              part: { type: ["string", "null"] },
              status: { type: "string", enum: ["needs_configuration", "not_wired"] },
              variables: { type: "array", items: { type: "string" } },
              message: { type: "string" },
            },
          },
        },
      },
    },
    AbilityList: {
      type: "object",
      required: ["ok", "tenant", "count", "abilities"],
      properties: {
        ok: { const: true },
        tenant: { type: "string" },
        keyId: { type: "string" },
        version: { type: "string" },
        count: { type: "integer" },
        live: { type: "integer" },
        limits: { type: "object" },
        urls: { type: "object" },
        statuses: { type: "object" },
        abilities: { type: "array", items: ref("AbilityInfo") },
      },
    },
  };
  const executeVariants: JsonSchema[] = [];
  const mapping: Record<string, string> = {};
  const resultVariants: JsonSchema[] = [];
  const resultMapping: Record<string, string> = {};
  for (const def of catalogue) {
    out[`AbilityInput.${def.id}`] = { ...def.input, title: `${def.id} input`, examples: [def.example] };
    out[`AbilityOutput.${def.id}`] = { ...outputSchemaOf(def), title: `${def.id} result` };
    out[`AbilityResult.${def.id}`] = {
      type: "object",
      additionalProperties: false,
      description: `HTTP 200 body of ${def.id} (spec §2.3).`,
      required: ["ok", "ability", "result", "duration"],
      properties: {
        ok: { const: true, description: "Success flag." },
        ability: { const: def.id, description: "Id of the ability that ran." },
        result: ref(`AbilityOutput.${def.id}`),
        duration: { type: "number", minimum: 0, description: "Server-side execution time in milliseconds." },
      },
    };
    resultVariants.push(ref(`AbilityResult.${def.id}`));
    resultMapping[def.id] = `#/components/schemas/AbilityResult.${def.id}`;
    out[`AbilityRequest.${def.id}`] = {
      type: "object",
      additionalProperties: false,
      required: ["input"],
      properties: { input: ref(`AbilityInput.${def.id}`), context: ref("CallContext") },
    };
    out[`ExecuteRequest.${def.id}`] = {
      type: "object",
      additionalProperties: false,
      required: ["ability", "input"],
      properties: { ability: { const: def.id }, input: ref(`AbilityInput.${def.id}`), context: ref("CallContext") },
    };
    executeVariants.push(ref(`ExecuteRequest.${def.id}`));
    mapping[def.id] = `#/components/schemas/ExecuteRequest.${def.id}`;
  }
  out.ExecuteRequest = {
    description:
      "The generic envelope (spec §4.2): `ability` names one of the catalogue's ids; `input` must match that ability's schema.",
    oneOf: executeVariants,
    discriminator: { propertyName: "ability", mapping },
  };
  out.ExecuteResult = {
    description:
      "HTTP 200 body of `POST /abilities/execute`: the envelope of the ability named in the request, `result` typed by its output schema.",
    oneOf: resultVariants,
    discriminator: { propertyName: "ability", mapping: resultMapping },
  };
  return out;
}

export function buildOpenApi(o: OpenApiOptions): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  const security = [{ bearerAuth: [] }];
  paths["/v1/abilities"] = {
    get: {
      operationId: "listAbilities",
      tags: ["discovery"],
      summary: "The abilities this key may call",
      description:
        "Each with id, area, description, input JSON Schema, an example input and whether it is live (owner reachable and wired). Status is refreshed at most every 5 s.",
      security,
      parameters: [
        {
          name: "area",
          in: "query",
          required: false,
          schema: { type: "string", enum: [...areas] },
          description: "Only this area (an unknown one is a 400).",
        },
      ],
      responses: {
        "200": { description: "The list.", content: { "application/json": { schema: ref("AbilityList") } } },
        "400": resp("BadRequest"),
        "401": resp("Unauthorized"),
        "429": resp("TooManyRequests"),
      },
    },
  };
  paths["/v1/abilities/{id}"] = {
    get: {
      operationId: "getAbility",
      tags: ["discovery"],
      summary: "One ability this key may call",
      security,
      parameters: [
        {
          name: "id",
          in: "path",
          required: true,
          schema: { type: "string", enum: catalogue.map((a) => a.id) },
          example: "contact.create",
        },
      ],
      responses: {
        "200": {
          description: "The ability, with its flattened input fields.",
          content: {
            "application/json": {
              schema: {
                allOf: [
                  ref("AbilityInfo"),
                  {
                    type: "object",
                    properties: { ok: { const: true }, fields: { type: "array", items: { type: "object" } } },
                  },
                ],
              },
            },
          },
        },
        "401": resp("Unauthorized"),
        "403": resp("Forbidden"),
        "404": resp("NotFound"),
        "429": resp("TooManyRequests"),
      },
    },
  };
  for (const def of catalogue) paths[`/v1/abilities/${def.id}`] = abilityOperation(def);
  const about = abilityById.get("gantry.about")!;
  paths["/abilities/execute"] = {
    post: {
      operationId: "executeAbility",
      tags: ["execute"],
      summary: "Call any ability through the generic envelope",
      description:
        "Behaves exactly like `POST /v1/abilities/{ability}` with the ability named in the body (spec §4.2). A missing or unknown `ability` is a 400 here (not a 404).",
      security,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: ref("ExecuteRequest"),
            examples: {
              about: { summary: "gantry.about", value: { ability: about.id, input: about.example } },
              contact: {
                summary: "contact.create",
                value: { ability: "contact.create", input: abilityById.get("contact.create")!.example },
              },
            },
          },
        },
      },
      responses: {
        "200": {
          description: "The ability ran; `result` follows the output schema of the ability named in the request.",
          headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
          content: { "application/json": { schema: ref("ExecuteResult") } },
        },
        "400": resp("BadRequest"),
        ...CALL_ERRORS,
      },
    },
  };
  paths["/docs"] = {
    get: {
      operationId: "docs",
      tags: ["discovery"],
      summary: "Per-credential documentation",
      description:
        "Without credentials: an HTML page into which a browser user pastes a key (kept in the browser, never in a URL). With `Authorization` and `Accept: text/markdown`: the same content as Markdown for that key.",
      security: [{}, { bearerAuth: [] }],
      responses: {
        "200": {
          description: "HTML page, or Markdown for the key.",
          content: { "text/html": { schema: { type: "string" } }, "text/markdown": { schema: { type: "string" } } },
        },
        "401": resp("Unauthorized"),
      },
    },
  };
  paths["/mcp"] = {
    post: {
      operationId: "mcp",
      tags: ["mcp"],
      summary: "Model Context Protocol (Streamable HTTP)",
      description:
        "MCP server: the tools are the abilities this key may call (name = ability id, inputSchema = the ability's input schema, outputSchema = its result schema `AbilityOutput.<id>`); `tools/call` runs the same pipeline as HTTP and returns the ability's `result` as `structuredContent` (and as JSON text), or a tool error (`isError`) carrying the ErrorResponse as JSON text and in `_meta[\"gantry/error\"]`. Serves protocol 2026-07-28 (stateless: `server/discover`, per-request `_meta`) and 2025-11-25 and earlier (`initialize`, `Mcp-Session-Id` sessions; also without a session). Body: one JSON-RPC message; send `Accept: application/json, text/event-stream`.",
      security,
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["jsonrpc", "method"],
              properties: {
                jsonrpc: { const: "2.0" },
                id: { type: ["string", "integer"] },
                method: { type: "string" },
                params: { type: "object" },
              },
            },
            example: {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/list",
              params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
            },
          },
        },
      },
      responses: {
        "200": {
          description: "JSON-RPC response (application/json) or an SSE stream (text/event-stream).",
          content: {
            "application/json": { schema: { type: "object" } },
            "text/event-stream": { schema: { type: "string" } },
          },
        },
        "202": { description: "A notification or response was accepted." },
        "400": rpcError("Malformed JSON (a parse error, -32700) or JSON-RPC, or an unsupported protocol version."),
        "401": resp("Unauthorized"),
        "403": resp("Forbidden"),
        "404": rpcError("Unknown or expired `Mcp-Session-Id`: initialize again."),
        "406": rpcError("The `Accept` header does not accept both `application/json` and `text/event-stream`."),
        "413": resp("PayloadTooLarge"),
        "415": resp("UnsupportedMediaType"),
      },
    },
    delete: {
      operationId: "mcpEndSession",
      tags: ["mcp"],
      summary: "End an MCP session (2025-11-25 protocol)",
      security,
      parameters: [{ name: "Mcp-Session-Id", in: "header", required: true, schema: { type: "string" } }],
      responses: {
        "200": { description: "Session ended." },
        "400": rpcError("An unsupported `MCP-Protocol-Version`."),
        "401": resp("Unauthorized"),
        "403": resp("Forbidden"),
        "404": rpcError("Unknown session."),
        "405": rpcError(
          "No `Mcp-Session-Id`: only a 2025-11-25 session can be ended (the 2026-07-28 protocol has none). `Allow` names the methods.",
        ),
      },
    },
  };
  paths["/openapi.json"] = {
    get: {
      operationId: "openapi",
      tags: ["discovery"],
      summary: "This document",
      security: [{}],
      responses: {
        "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  };
  // Public ingress (gateway/src/routes/ingress.ts): no API key; the owning service authenticates
  // each request itself (a provider's signature over the raw body, a signed link).
  const serviceParam = {
    name: "service",
    in: "path",
    required: true,
    description: "The area service the request is for, e.g. `payments`, `content`.",
    schema: { type: "string" },
  };
  const endpointParam = {
    name: "endpoint",
    in: "path",
    required: true,
    description: "The service's endpoint (a provider name for webhooks, an artifact path for files).",
    schema: { type: "string" },
  };
  const ingressErrors = {
    default: {
      description:
        "Refused by the gateway (404 no such service or endpoint, 413 body over 1 MiB, 429 too many requests from this address, 503 service unavailable) or by the service (e.g. 401 bad signature, 410 link expired).",
      content: { "application/json": { schema: ref("ErrorResponse") } },
    },
  };
  paths["/v1/webhooks/{service}/{endpoint}"] = {
    post: {
      operationId: "webhook",
      tags: ["operations"],
      summary: "A provider's webhook, forwarded to the service byte for byte (the service verifies its signature)",
      security: [{}],
      parameters: [serviceParam, endpointParam],
      requestBody: { required: false, content: { "*/*": { schema: {} } } },
      responses: {
        "200": { description: "Accepted by the service", content: { "*/*": { schema: {} } } },
        ...ingressErrors,
      },
    },
  };
  paths["/v1/files/{service}/{endpoint}"] = {
    get: {
      operationId: "file",
      tags: ["operations"],
      summary: "A file behind a signed, expiring link a service handed out (e.g. document.generate's PDF)",
      security: [{}],
      parameters: [serviceParam, endpointParam],
      responses: { "200": { description: "The file", content: { "*/*": { schema: {} } } }, ...ingressErrors },
    },
  };

  paths["/health"] = {
    get: {
      operationId: "health",
      tags: ["operations"],
      summary: "Gateway health and each area service's gRPC health",
      security: [{}],
      responses: {
        "200": { description: "ok or degraded", content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  };

  const tags = [
    { name: "discovery", description: "What this key may call, and where the docs are." },
    { name: "execute", description: "The generic execute envelope." },
    { name: "mcp", description: "Model Context Protocol server." },
    { name: "operations", description: "Health, provider webhooks and signed file links." },
    ...AREA_NAMES.map((name) => ({ name, description: AREAS[name].description })),
  ];

  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Gantry Ability API",
      version: o.version,
      summary: `A multi-tenant ability layer: ${catalogue.length} named abilities, each called with its input and answered in one envelope.`,
      description: [
        'Every operation is a named ability: `POST /v1/abilities/{id}` with `{"input": {...}, "context"?: {...}}` (or the generic `POST /abilities/execute`).',
        "Every call is validated against the ability's input schema, attributed to the tenant of the API key, rate limited per key and audited.",
        "Success is `200` with `{ok: true, ability, result, duration}`; every failure is an ErrorResponse `{ok: false, error, code, ...}`.",
        `Limits: request bodies up to ${o.maxBodyBytes} bytes; default rate limit ${o.rateLimit.limit} requests per ${o.rateLimit.windowSeconds} s per key (429 with \`retryAfterMs\` and \`Retry-After\`); key revocation takes effect within the 30 s auth cache.`,
        `Per-key documentation: ${o.baseUrl}/docs. MCP: ${o.baseUrl}/mcp.`,
      ].join("\n\n"),
    },
    servers: [{ url: o.baseUrl }],
    security,
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "Gantry API key (gk_…)",
          description: "`Authorization: Bearer <API key>` on every call.",
        },
      },
      headers: {
        "X-Request-Id": {
          description: "Id of this request; also the audit record's id and the receipt trust claims cite.",
          schema: { type: "string", pattern: "^req_[0-9A-Za-z]{22}$" },
        },
        "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
        RateLimit: {
          description: 'Remaining requests and seconds until the window resets: `"per-key";r=<remaining>;t=<seconds>`.',
          schema: { type: "string" },
        },
        "RateLimit-Policy": {
          description: 'This key\'s policy: `"per-key";q=<limit>;w=<window seconds>`.',
          schema: { type: "string" },
        },
        "Idempotent-Replayed": {
          description:
            "`true` when this call repeated an earlier one with the same idempotency key and input: the result is the first call's, nothing was created again. Absent otherwise.",
          schema: { type: "string", const: "true" },
        },
      },
      responses: errorResponses(o),
      schemas: schemas(),
    },
  };
}

const cache = new Map<string, string>();

/** The document as JSON text, built once per base URL. */
export function openApiJson(o: OpenApiOptions): string {
  const k = `${o.baseUrl}|${o.version}|${o.maxBodyBytes}|${o.rateLimit.limit}|${o.rateLimit.windowSeconds}`;
  let json = cache.get(k);
  if (!json) {
    json = JSON.stringify(buildOpenApi(o));
    if (cache.size > 16) cache.clear();
    cache.set(k, json);
  }
  return json;
}
