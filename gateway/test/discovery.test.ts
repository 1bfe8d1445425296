/**
 * Discovery through real processes: `GET /v1/abilities` and `GET /v1/abilities/{id}` (scoped to the
 * key, with live status from the owners' Describe RPC), `/openapi.json` as served, `/docs` (HTML
 * without a key; Markdown for a key), capability.discover and the URLs in gantry.about.
 * Services: keys (key resolution) and web (up, abilities declared but not wired); workspace is not
 * started, so contact.* are "unavailable".
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { abilityById, catalogue } from "@gantry/proto/catalogue";
import { validate, compileErrors } from "@readme/openapi-parser";
import { eventually, startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;
let narrow: string;
const NARROW_SCOPES = ["contact.*", "web.browse"];
// key.inspect and vertical.manifest_get (spec §5.11) and self-discovery (gantry.about,
// capability.discover) are open to every key, so they are listed too.
const NARROW_IDS = [
  "capability.discover",
  "contact.create",
  "contact.get",
  "contact.list",
  "contact.update",
  "gantry.about",
  "key.inspect",
  "vertical.manifest_get",
  "web.browse",
];

before(async () => {
  t = await startTestStack({ services: ["keys", "web"], env: { GANTRY_DISABLED_ABILITIES: "web.browse" } });
  narrow = (await t.insertKey({ tenant: "acme", scopes: NARROW_SCOPES })).key;
});
after(async () => t?.stop());

const get = (path: string, key?: string) => {
  const r = request(t.url).get(path);
  return key ? r.set("Authorization", `Bearer ${key}`) : r;
};

describe("GET /v1/abilities", () => {
  test("401 without a key, as an ErrorResponse", async () => {
    const res = await get("/v1/abilities").expect(401);
    assert.equal(res.body.ok, false);
    assert.equal(res.body.code, "unauthorized");
  });

  test("lists exactly the abilities the key may call, each with schema, example and live status", async () => {
    const res = await get("/v1/abilities", narrow).expect(200);
    assert.equal(res.headers["cache-control"], "no-store");
    assert.ok(res.headers["ratelimit-policy"]);
    assert.equal(res.body.tenant, "acme");
    assert.deepEqual(
      res.body.abilities.map((a: { id: string }) => a.id),
      NARROW_IDS,
    );
    assert.equal(res.body.count, NARROW_IDS.length);
    for (const a of res.body.abilities) {
      const def = abilityById.get(a.id)!;
      assert.equal(a.area, def.area);
      assert.equal(a.description, def.summary);
      assert.deepEqual(a.input, def.input);
      assert.deepEqual(a.example, def.example);
      assert.equal(a.path, `/v1/abilities/${a.id}`);
      assert.ok(Array.isArray(a.fields));
      assert.equal(a.live, a.status === "live");
    }
    const status = Object.fromEntries(res.body.abilities.map((a: { id: string; status: string }) => [a.id, a.status]));
    assert.equal(status["capability.discover"], "live", "a gateway meta ability with a handler");
    assert.equal(status["web.browse"], "not_wired", "web is up and declares it, switched off");
    assert.equal(status["contact.create"], "unavailable", "workspace is not running");
    assert.equal(status["key.inspect"], "live", "wired in the keys service");
    assert.equal(res.body.live, 3);
    assert.deepEqual(res.body.limits.rateLimit, { limit: 600, windowSeconds: 60 });
    assert.equal(res.body.urls.mcp, `${t.url}/mcp`);
  });

  test("the admin key sees all 79; ?area filters; an unknown area is a 400", async () => {
    const all = await get("/v1/abilities", t.adminKey).expect(200);
    assert.equal(all.body.count, 79);
    const contact = await get("/v1/abilities?area=contact", t.adminKey).expect(200);
    assert.deepEqual(
      contact.body.abilities.map((a: { id: string }) => a.id),
      ["contact.create", "contact.get", "contact.list", "contact.update"],
    );
    const bad = await get("/v1/abilities?area=nope", t.adminKey).expect(400);
    assert.equal(bad.body.details[0].path, "/query/area");
  });

  test("status is live: a stopped owner turns unavailable within the cache time, and back", async () => {
    const statusOf = async () => (await get("/v1/abilities/web.browse", narrow).expect(200)).body.status as string;
    assert.equal(await statusOf(), "not_wired");
    await t.stack.stopService("web");
    await eventually(async () => (await statusOf()) === "unavailable", 15_000, 250);
    await t.stack.startService("web");
    await t.stack.waitHealthy("web");
    await eventually(async () => (await statusOf()) === "not_wired", 15_000, 250);
  });
});

describe("GET /v1/abilities/{id}", () => {
  test("one ability with its flattened fields and status text", async () => {
    const res = await get("/v1/abilities/contact.create", narrow).expect(200);
    assert.equal(res.body.id, "contact.create");
    assert.ok(res.body.fields.some((f: { name: string; required: boolean }) => f.name === "name" && f.required));
    assert.match(res.body.statusText, /503/);
  });

  test("403 outside the key's scope, 404 for an unknown id", async () => {
    const forbidden = await get("/v1/abilities/key.list", narrow).expect(403);
    assert.equal(forbidden.body.code, "forbidden");
    assert.equal(forbidden.body.ability, "key.list");
    const missing = await get("/v1/abilities/nope.nothing", narrow).expect(404);
    assert.equal(missing.body.code, "unknown_ability");
  });

  test("discovery counts against the key's rate limit (429 with retryAfterMs)", async () => {
    const { key } = await t.insertKey({ scopes: ["*"], rateLimit: 2, rateWindowSeconds: 60 });
    await get("/v1/abilities", key).expect(200);
    await get("/v1/abilities/gantry.about", key).expect(200);
    const limited = await get("/v1/abilities", key).expect(429);
    assert.equal(limited.body.code, "rate_limited");
    assert.ok(limited.body.retryAfterMs > 0);
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
  });
});

describe("/openapi.json as served", () => {
  test("public, OpenAPI 3.1, valid, carries this gateway's URL and version", async () => {
    const res = await get("/openapi.json").expect(200);
    assert.match(res.headers["content-type"], /application\/json/);
    assert.equal(res.body.openapi, "3.1.0");
    assert.deepEqual(res.body.servers, [{ url: t.url }]);
    const about = await t.call("gantry.about", { input: {} }).expect(200);
    assert.equal(res.body.info.version, about.body.result.version);
    const result = await validate(res.body);
    assert.equal(result.valid, true, result.valid ? "" : compileErrors(result));
  });
});

describe("/docs", () => {
  test("without a key: the HTML page, with a strict CSP and no secret in it", async () => {
    const res = await get("/docs").set("Accept", "text/html").expect(200);
    assert.match(res.headers["content-type"], /text\/html/);
    assert.match(res.headers["content-security-policy"], /script-src 'self'/);
    assert.doesNotMatch(res.headers["content-security-policy"], /unsafe-inline/);
    assert.ok(res.text.includes(`${t.url}/mcp`));
    assert.ok(!res.text.includes(t.adminKey));
    assert.doesNotMatch(res.text, /<script>(?!<\/script>)/, "no inline script");
    await get("/docs/assets/docs.js")
      .expect(200)
      .expect("content-type", /javascript/);
    await get("/docs/assets/docs.css").expect(200).expect("content-type", /css/);
    await get("/docs/assets/nope.js").expect(404);
  });

  test("Accept: text/markdown needs the key (401 without)", async () => {
    const res = await get("/docs").set("Accept", "text/markdown").expect(401);
    assert.equal(res.body.code, "unauthorized");
  });

  test("Accept: text/markdown with a key: the same content as Markdown, scoped to the key", async () => {
    const res = await get("/docs", narrow).set("Accept", "text/markdown").expect(200);
    assert.match(res.headers["content-type"], /text\/markdown/);
    assert.equal(res.headers["cache-control"], "no-store");
    const md = res.text;
    for (const id of NARROW_IDS) assert.ok(md.includes(`#### ${id}\n`), `missing ${id}`);
    assert.ok(!md.includes("#### key.list"), "an ability outside the scope is not documented for this key");
    assert.ok(md.includes(`curl -sS -X POST ${t.url}/v1/abilities/contact.create`));
    assert.ok(md.includes(`fetch("${t.url}/v1/abilities/contact.create"`));
    assert.ok(md.includes("Status: **unavailable**"));
    // MCP host setup, limits, errors.
    for (const s of [
      "## MCP",
      "claude mcp add --transport http gantry",
      "mcpServers",
      "bearer_token_env_var",
      "## Limits",
      "600 requests per 60 s",
      "1048576 bytes",
      "| Which part of a vertical manifest is returned | surface unless you set section | vertical.manifest_get |",
      "## Errors",
      "rate_limited",
    ]) {
      assert.ok(md.includes(s), `markdown lacks ${JSON.stringify(s)}`);
    }
    // The Limits table names only this key's own abilities (not key.rotate, memory.search, guide.publish…).
    const limits = md.slice(md.indexOf("## Limits"), md.indexOf("## MCP"));
    for (const other of [
      "key.rotate",
      "memory.search",
      "memory.recall",
      "guide.publish",
      "document.summarize",
      "key.list",
    ])
      assert.ok(!limits.includes(other), `Limits shows ${other}, which this key cannot call`);
    assert.doesNotMatch(limits, /overlapHours default|default medium/, "plain words, not field-name jargon");
    assert.ok(!md.includes(narrow), "the key itself is never echoed");
    const alias = await get("/docs.md", narrow).expect(200);
    assert.equal(alias.text, md);
  });
});

describe("MCP tools/list", () => {
  test("offers what can run or is only down for now, never a not_wired ability", async () => {
    const res = await request(t.url)
      .post("/mcp")
      .set("Accept", "application/json, text/event-stream")
      .set("Authorization", `Bearer ${narrow}`)
      .set("MCP-Protocol-Version", "2025-11-25")
      .send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
      .expect(200);
    const names = res.body.result.tools.map((x: { name: string }) => x.name);
    assert.ok(!names.includes("web.browse"), "switched off (not_wired): a call would answer 501");
    assert.ok(names.includes("contact.create"), "unavailable (workspace down) stays: a 503 says retry");
    assert.deepEqual(
      names,
      NARROW_IDS.filter((id) => id !== "web.browse"),
    );
  });
});

describe("capability.discover", () => {
  const discover = (input: object, key = narrow) => t.call("capability.discover", { input }, key);

  test("ranks matches within the caller's scope, with live status", async () => {
    const res = await discover({ query: "create a contact", limit: 3 }).expect(200);
    const r = res.body.result;
    assert.equal(r.abilities[0].id, "contact.create");
    assert.equal(r.abilities[0].status, "unavailable");
    assert.equal(r.abilities[0].live, false);
    assert.deepEqual(r.abilities[0].requiredFields, ["name"]);
    assert.ok(r.abilities.length <= 3);
    assert.ok(
      r.abilities.every((a: { id: string }) => NARROW_IDS.includes(a.id)),
      "never outside the scope",
    );
    assert.ok(
      r.outOfScope.some((a: { id: string }) => a.id === "lead.create"),
      "names what a wider key could call",
    );
  });

  test("matches field names and reports live ones as live", async () => {
    const res = await discover({ query: "search abilities by words" }, t.adminKey).expect(200);
    assert.equal(res.body.result.abilities[0].id, "capability.discover");
    assert.equal(res.body.result.abilities[0].status, "live");
  });

  test("area filter, no query lists the scope, limit applies", async () => {
    const web = await discover({ area: "web" }).expect(200);
    assert.deepEqual(
      web.body.result.abilities.map((a: { id: string }) => a.id),
      ["web.browse"],
    );
    assert.equal(web.body.result.abilities[0].status, "not_wired");
    const all = await discover({}).expect(200);
    assert.deepEqual(
      all.body.result.abilities.map((a: { id: string }) => a.id),
      NARROW_IDS,
    );
    const two = await discover({ limit: 2 }, t.adminKey).expect(200);
    assert.equal(two.body.result.abilities.length, 2);
    assert.equal(two.body.result.total, 79);
  });

  test("nothing in scope matches: empty list, the out-of-scope matches and a hint", async () => {
    const res = await discover({ query: "send a payout" }).expect(200);
    assert.equal(res.body.result.abilities.length, 0);
    assert.ok(res.body.result.outOfScope.some((a: { id: string }) => a.id === "payout.send"));
    assert.match(res.body.result.hint, /outside this key's scopes/);
    const none = await discover({ query: "xyzzy plugh" }).expect(200);
    assert.equal(none.body.result.abilities.length + none.body.result.outOfScope.length, 0);
  });

  test("input is validated like any ability", async () => {
    const res = await discover({ limit: 0, area: "nowhere" }).expect(400);
    const paths = res.body.details.map((d: { path: string }) => d.path).sort();
    assert.deepEqual(paths, ["/input/area", "/input/limit"]);
  });

  test("works through the generic execute envelope too", async () => {
    const res = await request(t.url)
      .post("/abilities/execute")
      .set("Authorization", `Bearer ${narrow}`)
      .send({ ability: "capability.discover", input: { query: "contact" } })
      .expect(200);
    assert.equal(res.body.ability, "capability.discover");
  });
});

describe("gantry.about", () => {
  test("gives the docs and MCP URLs, and both answer", async () => {
    const about = await t.call("gantry.about", { input: {} }).expect(200);
    const urls = about.body.result.urls;
    assert.equal(urls.docs, `${t.url}/docs`);
    assert.equal(urls.mcp, `${t.url}/mcp`);
    assert.equal(urls.openapi, `${t.url}/openapi.json`);
    await request(urls.docs).get("").expect(200);
    const mcp = await request(urls.mcp)
      .post("")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .set("Accept", "application/json, text/event-stream")
      .send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
      })
      .expect(200);
    assert.equal(mcp.body.result.serverInfo.name, "gantry");
  });

  test("every catalogue ability is documented in the admin's Markdown", async () => {
    const md = (await get("/docs.md", t.adminKey).expect(200)).text;
    for (const a of catalogue) assert.ok(md.includes(`#### ${a.id}\n`), a.id);
    // The admin may call everything, so its Limits table has every per-ability row, in plain words.
    const limits = md.slice(md.indexOf("## Limits"), md.indexOf("## MCP"));
    assert.ok(
      limits.includes(
        "| How long the old key keeps working after a rotation | 24 hours unless you set overlapHours (you may choose 0 to 336) | key.rotate |",
      ),
      limits,
    );
    assert.ok(limits.includes("| Length of a summary | medium unless you set length | document.summarize |"), limits);
  });
});

describe("self-discovery is open to every key", () => {
  test("a key scoped to one unrelated ability may call gantry.about and capability.discover", async () => {
    const { key } = await t.insertKey({ tenant: "acme", scopes: ["web.browse"] });
    const about = await t.call("gantry.about", { input: {} }, key).expect(200);
    assert.equal(about.body.result.tenant, "acme");
    assert.equal(about.body.result.urls.docs, `${t.url}/docs`);
    const found = await t.call("capability.discover", { input: { query: "browse a web page" } }, key).expect(200);
    assert.ok(found.body.result.abilities.some((a: { id: string }) => a.id === "web.browse"));
    // Listed as callable for it, and still nothing else.
    const list = await get("/v1/abilities", key).expect(200);
    assert.deepEqual(
      list.body.abilities.map((a: { id: string }) => a.id),
      ["capability.discover", "gantry.about", "key.inspect", "vertical.manifest_get", "web.browse"],
    );
    await t.call("contact.list", { input: {} }, key).expect(403);
  });
});
