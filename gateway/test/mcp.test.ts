/**
 * `/mcp` through real processes, driven by the official SDK clients over HTTP:
 * - the 1.x client (`@modelcontextprotocol/sdk`), which speaks 2025-11-25 with a session;
 * - the 2.x client (`@modelcontextprotocol/client`) pinned to 2026-07-28 (stateless) and in `auto`
 *   negotiation mode;
 * - raw 2025-era requests without a session.
 * Tools are the key's abilities; tools/call runs the HTTP pipeline (validation, rate limit, audit)
 * and answers with the HTTP envelope or a tool error carrying the HTTP ErrorResponse.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { abilityById } from "@gantry/proto/catalogue";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

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
  _meta?: Record<string, unknown>;
};

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
    } finally {
      await admin.client.close();
    }
  });

  test("tools/call runs the pipeline: the HTTP envelope as structured content", async () => {
    const a = await v1(narrow.key);
    try {
      const res = (await a.client.callTool({ name: "gantry.about", arguments: {} })) as ToolResult;
      assert.ok(!res.isError);
      assert.equal(res.structuredContent?.ok, true);
      assert.equal(res.structuredContent?.ability, "gantry.about");
      assert.equal(res.structuredContent?.result.tenant, "acme");
      assert.equal(typeof res.structuredContent?.duration, "number");
      assert.deepEqual(JSON.parse(res.content[0].text!), res.structuredContent);
      const http = await t.call("gantry.about", { input: {} }, narrow.key).expect(200);
      assert.deepEqual(res.structuredContent?.result, http.body.result);
    } finally {
      await a.client.close();
    }
  });

  test("a validation error is a tool error with the same code, message and details as HTTP", async () => {
    const a = await v1(narrow.key);
    try {
      const args = { query: "", limit: 500 };
      const res = (await a.client.callTool({ name: "capability.discover", arguments: args })) as ToolResult;
      assert.equal(res.isError, true);
      const http = await t.call("capability.discover", { input: args }, narrow.key).expect(400);
      assert.equal(res.structuredContent?.code, "validation_failed");
      assert.equal(res.structuredContent?.code, http.body.code);
      assert.equal(res.structuredContent?.error, http.body.error);
      assert.deepEqual(res.structuredContent?.details, http.body.details);
      assert.match(res.structuredContent?.requestId, /^req_/);
    } finally {
      await a.client.close();
    }
  });

  test("a tool outside the scope is refused with forbidden; an unknown tool is a -32602 error", async () => {
    const a = await v1(narrow.key);
    try {
      const res = (await a.client.callTool({ name: "key.list", arguments: {} })) as ToolResult;
      assert.equal(res.isError, true);
      assert.equal(res.structuredContent?.code, "forbidden");
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
      assert.equal(second.isError, true);
      assert.equal(second.structuredContent?.code, "rate_limited");
      assert.ok(second.structuredContent?.retryAfterMs > 0);
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
      assert.equal(ok.structuredContent?.result.abilities[0].id, "contact.create");
      const bad = (await c.callTool({ name: "contact.create", arguments: { phone: "x" } })) as ToolResult;
      assert.equal(bad.isError, true);
      assert.equal(bad.structuredContent?.code, "validation_failed");
      assert.ok(bad.structuredContent?.details.some((d: { path: string }) => d.path === "/input/name"));
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
    assert.equal(res.body.result.structuredContent.result.tenant, "acme");
    assert.equal(res.headers["mcp-session-id"], undefined);
    // The pipeline's outcome reaches the HTTP response: the key's rate-limit state, this request's id, its base URL.
    assert.match(res.headers.ratelimit, /^"per-key";r=\d+;t=\d+$/);
    assert.equal(res.body.result._meta["gantry/requestId"], res.headers["x-request-id"]);
    assert.equal(res.body.result.structuredContent.result.urls.mcp, `${t.url}/mcp`);
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
