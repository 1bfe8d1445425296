/**
 * `/mcp` through real processes, driven by the official SDK clients over HTTP:
 * - the 1.x client (`@modelcontextprotocol/sdk`), which speaks 2025-11-25 with a session;
 * - the 2.x client (`@modelcontextprotocol/client`) pinned to 2026-07-28 (stateless) and in `auto`
 *   negotiation mode;
 * - raw 2025-era requests without a session.
 * Tools are the key's abilities, each with the ability's result schema as `outputSchema`; tools/call
 * runs the HTTP pipeline (validation, rate limit, audit) and answers with the envelope's `result` as
 * `structuredContent` (valid against the tool's outputSchema), or a tool error carrying the HTTP
 * ErrorResponse as text and in `_meta["gantry/error"]`.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { abilityById } from "@gantry/proto/catalogue";
import { createAjv } from "@gantry/kit";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { toolOutput } from "../src/mcp/server.ts";

let t: TestStack;
let narrow: { id: string; key: string };
// key.inspect and vertical.manifest_get are open to every key (spec §5.11).
const NARROW_IDS = [
  "capability.discover",
  "contact.create",
  "contact.get",
  "contact.list",
  "contact.update",
  "gantry.about",
  "key.inspect",
  "vertical.manifest_get",
];

before(async () => {
  t = await startTestStack({ services: ["keys"] });
  narrow = await t.insertKey({ tenant: "acme", scopes: ["contact.*", "capability.discover", "gantry.about"] });
});
after(async () => t?.stop());

const auth = (key: string) => ({ requestInit: { headers: { Authorization: `Bearer ${key}` } } });
const mcpUrl = () => new URL(`${t.url}/mcp`);

async function v1(key: string) {
  const client = new V1Client({ name: "gantry-test-v1", version: "1.0.0" });
  const transport = new V1Transport(mcpUrl(), auth(key));
  await client.connect(transport);
  return { client, transport };
}

async function v2(key: string, mode: "auto" | { pin: string } = { pin: "2026-07-28" }) {
  const client = new V2Client({ name: "gantry-test-v2", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new V2Transport(mcpUrl(), auth(key)));
  return client;
}

type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, any>;
  content: { type: string; text?: string }[];
  _meta?: Record<string, any>;
};

/** The ability's result in a successful tool result (`{result}`-wrapped only for non-object result schemas). */
const resultOf = (name: string, res: ToolResult) =>
  toolOutput(name).wrapped ? res.structuredContent?.result : res.structuredContent;

/** The ErrorResponse of a tool error: its JSON text, also in `_meta["gantry/error"]`; never structured content. */
function errorOf(res: ToolResult): Record<string, any> {
  assert.equal(res.isError, true);
  assert.equal(
    res.structuredContent,
    undefined,
    "a tool error carries no structuredContent (it would have to match outputSchema)",
  );
  const body = JSON.parse(res.content[0].text!);
  assert.deepEqual(res._meta?.["gantry/error"], body);
  return body;
}

const ajv = createAjv();

describe("MCP 2025-11-25 with a session (SDK 1.x client)", () => {
  test("tools are exactly the key's abilities, with the catalogue's schema; two keys see different tools", async () => {
    const a = await v1(narrow.key);
    try {
      assert.match(a.transport.sessionId ?? "", /^mcp_[0-9a-f]{32}$/);
      const { tools } = await a.client.listTools();
      assert.deepEqual(
        tools.map((x) => x.name),
        NARROW_IDS,
      );
      const create = tools.find((x) => x.name === "contact.create")!;
      assert.deepEqual(create.inputSchema, abilityById.get("contact.create")!.input);
      assert.equal(create.description?.startsWith(abilityById.get("contact.create")!.summary), true);
      assert.match(create.description!, /503/, "not-live status is stated");
      assert.equal(a.client.getServerVersion()?.name, "gantry");
    } finally {
      await a.client.close();
    }
    const admin = await v1(t.adminKey);
    try {
      const { tools } = await admin.client.listTools();
      assert.equal(tools.length, 79);
      for (const tool of tools) {
        const output = abilityById.get(tool.name)!.output;
        assert.equal(tool.outputSchema?.type, "object", `${tool.name}: outputSchema must be an object schema`);
        if (output?.type === "object")
          assert.deepEqual(tool.outputSchema, output, `${tool.name}: the catalogue's output`);
        else
          assert.deepEqual(tool.outputSchema?.required, ["result"], `${tool.name}: {result} wraps a non-object output`);
        ajv.compile(tool.outputSchema!); // a schema clients can compile
      }
    } finally {
      await admin.client.close();
    }
  });

  test("tools/call runs the pipeline: the result as structured content, valid against the tool's outputSchema", async () => {
    const a = await v1(narrow.key);
    try {
      // Listing first makes the 1.x client check structuredContent against outputSchema itself, too.
      const { tools } = await a.client.listTools();
      // Two gateway abilities and one of the keys service (key.inspect, open to every key).
      const calls: [string, Record<string, unknown>][] = [
        ["gantry.about", {}],
        ["capability.discover", { query: "contact" }],
        ["key.inspect", {}],
      ];
      for (const [name, args] of calls) {
        const res = (await a.client.callTool({ name, arguments: args })) as ToolResult;
        assert.ok(!res.isError, JSON.stringify(res));
        const schema = tools.find((x) => x.name === name)!.outputSchema!;
        const validate = ajv.compile(schema);
        assert.ok(validate(res.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`);
        assert.deepEqual(JSON.parse(res.content[0].text!), res.structuredContent);
        assert.equal(typeof res._meta?.["gantry/duration"], "number");
        assert.match(res._meta?.["gantry/requestId"], /^req_/);
      }
      const res = (await a.client.callTool({ name: "gantry.about", arguments: {} })) as ToolResult;
      assert.equal(resultOf("gantry.about", res).tenant, "acme");
      const http = await t.call("gantry.about", { input: {} }, narrow.key).expect(200);
      assert.deepEqual(resultOf("gantry.about", res), http.body.result);
    } finally {
      await a.client.close();
    }
  });

  test("a validation error is a tool error with the same code, message and details as HTTP", async () => {
    const a = await v1(narrow.key);
    try {
      await a.client.listTools(); // the 1.x client then validates structured content: an error must not trip it
      const args = { query: "", limit: 500 };
      const res = (await a.client.callTool({ name: "capability.discover", arguments: args })) as ToolResult;
      const body = errorOf(res);
      const http = await t.call("capability.discover", { input: args }, narrow.key).expect(400);
      assert.equal(body.code, "validation_failed");
      assert.equal(body.code, http.body.code);
      assert.equal(body.error, http.body.error);
      assert.deepEqual(body.details, http.body.details);
      assert.match(body.requestId, /^req_/);
    } finally {
      await a.client.close();
    }
  });

  test("a tool outside the scope is refused with forbidden; an unknown tool is a -32602 error", async () => {
    const a = await v1(narrow.key);
    try {
      const res = (await a.client.callTool({ name: "key.list", arguments: {} })) as ToolResult;
      assert.equal(errorOf(res).code, "forbidden");
      await assert.rejects(
        a.client.callTool({ name: "nope.nothing", arguments: {} }),
        (err: { code?: number; message: string }) => err.code === -32602 && /Unknown tool/.test(err.message),
      );
    } finally {
      await a.client.close();
    }
  });

  test("each call is audited under its own request id", async () => {
    const a = await v1(narrow.key);
    try {
      const res = (await a.client.callTool({ name: "capability.discover", arguments: { limit: 0 } })) as ToolResult;
      const requestId = res._meta?.["gantry/requestId"] as string;
      assert.match(requestId, /^req_/);
      const row = await eventually(
        async () => (await t.db.query("SELECT * FROM keys.audit_records WHERE request_id = $1", [requestId])).rows[0],
      );
      assert.equal(row.ability, "capability.discover");
      assert.equal(row.status, 400);
      assert.equal(row.key_id, narrow.id);
      assert.equal(row.tenant, "acme");
    } finally {
      await a.client.close();
    }
  });

  test("the key's rate limit applies to tool calls", async () => {
    const { key } = await t.insertKey({ scopes: ["gantry.about"], rateLimit: 1, rateWindowSeconds: 60 });
    const a = await v1(key);
    try {
      const first = (await a.client.callTool({ name: "gantry.about", arguments: {} })) as ToolResult;
      assert.ok(!first.isError);
      const second = (await a.client.callTool({ name: "gantry.about", arguments: {} })) as ToolResult;
      const body = errorOf(second);
      assert.equal(body.code, "rate_limited");
      assert.ok(body.retryAfterMs > 0);
    } finally {
      await a.client.close();
    }
  });

  test("sessions are bound to their key and end on DELETE", async () => {
    const a = await v1(narrow.key);
    const sid = a.transport.sessionId!;
    const list = { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} };
    const post = (key: string) =>
      request(t.url)
        .post("/mcp")
        .set("Authorization", `Bearer ${key}`)
        .set("Accept", "application/json, text/event-stream")
        .set("Mcp-Session-Id", sid)
        .set("MCP-Protocol-Version", "2025-11-25")
        .send(list);
    const own = await post(narrow.key).expect(200);
    assert.equal(own.body.result.tools.length, NARROW_IDS.length);
    await post(t.adminKey).expect(404);
    await a.transport.terminateSession();
    await post(narrow.key).expect(404);
    await a.client.close();
  });
});

describe("MCP 2026-07-28, stateless (SDK 2.x client)", () => {
  test("pinned to 2026-07-28: tools, a call, and a validation error", async () => {
    const c = await v2(narrow.key);
    try {
      assert.equal(c.getProtocolEra(), "modern");
      assert.equal(c.getNegotiatedProtocolVersion(), "2026-07-28");
      const { tools } = await c.listTools();
      assert.deepEqual(
        tools.map((x) => x.name),
        NARROW_IDS,
      );
      const ok = (await c.callTool({
        name: "capability.discover",
        arguments: { query: "create a contact", limit: 1 },
      })) as ToolResult;
      assert.ok(!ok.isError);
      assert.equal(resultOf("capability.discover", ok).abilities[0].id, "contact.create");
      const validate = ajv.compile(tools.find((x) => x.name === "capability.discover")!.outputSchema!);
      assert.ok(validate(ok.structuredContent), JSON.stringify(validate.errors));
      const bad = (await c.callTool({ name: "contact.create", arguments: { phone: "x" } })) as ToolResult;
      const body = errorOf(bad);
      assert.equal(body.code, "validation_failed");
      assert.ok(body.details.some((d: { path: string }) => d.path === "/input/name"));
    } finally {
      await c.close();
    }
  });

  test("auto negotiation picks 2026-07-28; the default (legacy) mode gets a 2025-11-25 session", async () => {
    const auto = await v2(t.adminKey, "auto");
    try {
      assert.equal(auto.getNegotiatedProtocolVersion(), "2026-07-28");
      assert.equal((await auto.listTools()).tools.length, 79);
    } finally {
      await auto.close();
    }
    const legacy = new V2Client({ name: "gantry-test-v2-legacy", version: "1.0.0" });
    await legacy.connect(new V2Transport(mcpUrl(), auth(narrow.key)));
    try {
      assert.equal(legacy.getNegotiatedProtocolVersion(), "2025-11-25");
      assert.equal((await legacy.listTools()).tools.length, NARROW_IDS.length);
    } finally {
      await legacy.close();
    }
  });
});

describe("HTTP edge of /mcp", () => {
  const rpc = (key: string) =>
    request(t.url)
      .post("/mcp")
      .set("Accept", "application/json, text/event-stream")
      .set("Authorization", `Bearer ${key}`);

  test("401 with a Bearer challenge without a key, or with an unknown one", async () => {
    const res = await request(t.url)
      .post("/mcp")
      .set("Accept", "application/json, text/event-stream")
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      .expect(401);
    assert.match(res.headers["www-authenticate"], /^Bearer /);
    assert.equal(res.body.code, "unauthorized");
    const client = new V1Client({ name: "t", version: "1" });
    await assert.rejects(client.connect(new V1Transport(mcpUrl(), auth("gk_notarealkey"))));
  });

  test("a 2025-era request without a session is served statelessly", async () => {
    const res = await rpc(narrow.key)
      .set("MCP-Protocol-Version", "2025-11-25")
      .send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "gantry.about", arguments: {} } })
      .expect(200);
    assert.equal(resultOf("gantry.about", res.body.result).tenant, "acme");
    assert.equal(res.headers["mcp-session-id"], undefined);
    // The pipeline's outcome reaches the HTTP response: the key's rate-limit state, this request's id, its base URL.
    assert.match(res.headers.ratelimit, /^"per-key";r=\d+;t=\d+$/);
    assert.equal(res.body.result._meta["gantry/requestId"], res.headers["x-request-id"]);
    assert.equal(resultOf("gantry.about", res.body.result).urls.mcp, `${t.url}/mcp`);
  });

  test("GET (no SSE stream offered) is 405; a foreign Origin is 403; malformed JSON is a parse error", async () => {
    await request(t.url).get("/mcp").set("Authorization", `Bearer ${narrow.key}`).expect(405);
    await request(t.url)
      .post("/mcp")
      .set("Authorization", `Bearer ${narrow.key}`)
      .set("Origin", "https://evil.example")
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list" })
      .expect(403);
    const bad = await request(t.url)
      .post("/mcp")
      .set("Authorization", `Bearer ${narrow.key}`)
      .set("Content-Type", "application/json")
      .send("{nope")
      .expect(400);
    assert.equal(bad.body.error.code, -32700);
  });
});
