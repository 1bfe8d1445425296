/**
 * @module gateway/docs/openapi
 * The OpenAPI 3.1 description served at `/openapi.json`, generated from the catalogue: one
 * `POST /v1/abilities/{id}` path per ability (its input JSON Schema as a component, a realistic
 * example, and the error responses of spec §7 with examples), the generic `POST /abilities/execute`
 * envelope (a `oneOf` over every ability, discriminated by `ability`), discovery, docs and MCP,
 * the envelope and ErrorResponse schemas and the bearer security scheme. OpenAPI 3.1 schemas are
 * JSON Schema 2020-12, the catalogue's dialect, so input schemas are embedded unchanged.
 * `info.version` is the interface version `0.1.0+<build>` (spec §9.3).
 */
import {
  AREA_NAMES,
  AREAS,
  abilityById,
  catalogue,
  decisions,
  type AbilityDef,
  type JsonSchema,
} from "@gantry/proto/catalogue";
import { ERROR_CODES, GantryError, validateInput } from "@gantry/kit";
import { errorBody } from "../pipeline/outcome.ts";

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

function errorExample(
  code: GantryError["code"],
  message: string,
  extra: { reason?: string; retryAfterMs?: number } = {},
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
  return {
    post: {
      operationId: operationId(def.id),
      tags: [def.area],
      summary: def.summary,
      description,
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
          description: `${def.id} ran; \`result\` is its return value.`,
          headers: {
            "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" },
            RateLimit: { $ref: "#/components/headers/RateLimit" },
            "RateLimit-Policy": { $ref: "#/components/headers/RateLimit-Policy" },
          },
          content: {
            "application/json": {
              schema: { allOf: [ref("AbilityResult"), { type: "object", properties: { ability: { const: def.id } } }] },
              examples: {
                success: {
                  summary: "Success envelope (the shape of `result` depends on the ability)",
                  value: { ok: true, ability: def.id, result: {}, duration: 4.271 },
                },
              },
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
    NotFound: one("No ability has the requested id, or the record the input names does not exist for this tenant.", {
      unknownAbility: errorExample("unknown_ability", 'No ability has the id "contact.nope".', {
        reason: "GET /v1/abilities lists the abilities this key may call.",
      }),
    }),
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
      description: "HTTP 200 body (spec §2.3).",
      required: ["ok", "ability", "result", "duration"],
      properties: {
        ok: { const: true, description: "Success flag." },
        ability: { type: "string", description: "Id of the ability that ran." },
        result: { description: "Return value; its shape depends on the ability." },
        duration: { type: "number", minimum: 0, description: "Server-side execution time in milliseconds." },
      },
    },
    ErrorDetail: {
      type: "object",
      required: ["path", "message"],
      properties: {
        path: { type: "string", description: "JSON Pointer into the request, e.g. `/input/email`." },
        message: { type: "string" },
        code: { description: "Machine-readable: the failing JSON Schema keyword, or a code the ability sets." },
      },
    },
    ErrorResponse: {
      type: "object",
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
        details: { type: "array", items: ref("ErrorDetail"), description: "JSON Schema validation errors." },
        retryAfterMs: { type: "number", minimum: 0, description: "Milliseconds to wait before retrying (429, 503)." },
        requestId: { type: "string", description: "Same as the X-Request-Id header: the audit record's id." },
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
          enum: ["live", "not_wired", "unavailable"],
          description: "live: runs now; not_wired: answers 501; unavailable: owner down, answers 503.",
        },
        live: { type: "boolean" },
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
  for (const def of catalogue) {
    out[`AbilityInput.${def.id}`] = { ...def.input, title: `${def.id} input`, examples: [def.example] };
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
        { name: "area", in: "query", required: false, schema: { type: "string" }, description: "Only this area." },
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
          description: "The ability ran.",
          headers: { "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } },
          content: { "application/json": { schema: ref("AbilityResult") } },
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
        "MCP server: the tools are the abilities this key may call (name = ability id, inputSchema = the ability's input schema); `tools/call` runs the same pipeline as HTTP and returns the AbilityResult envelope as structured content, or a tool error carrying the ErrorResponse. Serves protocol 2026-07-28 (stateless: `server/discover`, per-request `_meta`) and 2025-11-25 and earlier (`initialize`, `Mcp-Session-Id` sessions; also without a session). Body: one JSON-RPC message.",
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
        "400": { description: "Malformed JSON-RPC, unsupported protocol version or missing session id." },
        "401": resp("Unauthorized"),
        "404": { description: "Unknown or expired `Mcp-Session-Id`: initialize again." },
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
        "401": resp("Unauthorized"),
        "404": { description: "Unknown session." },
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
    { name: "operations", description: "Health." },
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
