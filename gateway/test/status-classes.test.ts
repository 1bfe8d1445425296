/**
 * Every status class of spec §7 as a client observes it, through real processes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { abilityById, catalogue } from "@gantry/proto/catalogue";
import { generateKey } from "@gantry/kit";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

let t: TestStack;

before(async () => {
  // web.browse is switched off (GANTRY_DISABLED_ABILITIES), so the 501 path has an ability to answer for.
  t = await startTestStack({ env: { MAX_BODY_BYTES: "4096", GANTRY_DISABLED_ABILITIES: "web.browse" } });
});
after(async () => {
  await t?.stop();
});

function assertErrorShape(body: Record<string, unknown>) {
  assert.equal(body.ok, false);
  assert.equal(typeof body.error, "string");
  assert.equal(typeof body.code, "string");
}

describe("200", () => {
  test("gantry.about returns the envelope with version 0.1.0+<build>", async () => {
    const res = await t.call("gantry.about", { input: {} }).expect(200);
    assert.equal(res.body.ok, true);
    assert.equal(res.body.ability, "gantry.about");
    assert.equal(typeof res.body.duration, "number");
    assert.match(res.body.result.version, /^0\.1\.0\+[0-9A-Za-z.-]+$/);
    assert.equal(res.body.result.tenant, "platform");
    assert.equal(res.body.result.abilityCount, 79);
    assert.match(res.headers["x-request-id"], /^req_[0-9A-Za-z]{22}$/);
    assert.match(res.headers["content-type"], /application\/json/);
  });

  test("the exact path (answered without Express) and the spellings Express routes answer alike", async () => {
    // POST /v1/abilities/{id} is served on the bare node:http request; a trailing slash, a query
    // string or other letter case fall through to Express's route. A user must not see a difference.
    const answers = [];
    for (const path of ["/v1/abilities/key.inspect", "/v1/abilities/key.inspect/", "/V1/Abilities/key.inspect"]) {
      const res = await request(t.url)
        .post(path)
        .set("Authorization", `Bearer ${t.adminKey}`)
        .send({ input: {} })
        .expect(200);
      assert.match(res.headers["x-request-id"], /^req_[0-9A-Za-z]{22}$/);
      assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
      assert.equal(Number(res.headers["content-length"]), Buffer.byteLength(res.text));
      assert.match(res.headers["ratelimit-policy"] ?? "", /"per-key";q=\d+/, path);
      answers.push({ ...res.body, duration: 0 });
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    const unknown = await t.call("no.such_ability", { input: {} }).expect(404);
    assert.equal(unknown.body.code, "unknown_ability");
    assert.match(unknown.headers["x-request-id"], /^req_/);
  });
});

describe("400", () => {
  test("body without input", async () => {
    const res = await t.call("gantry.about", { context: {} }).expect(400);
    assertErrorShape(res.body);
    assert.equal(res.body.details[0].path, "/input");
  });

  test("malformed JSON", async () => {
    const res = await request(t.url)
      .post("/v1/abilities/gantry.about")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .set("Content-Type", "application/json")
      .send('{"input": {')
      .expect(400);
    assert.equal(res.body.code, "invalid_json");
  });

  test("input failing its schema lists every error with its path", async () => {
    const res = await t
      .call("lesson.record", { input: { category: "misc", severity: "sometimes", extra: 1 } })
      .expect(400);
    assertErrorShape(res.body);
    assert.equal(res.body.ability, "lesson.record");
    const paths = res.body.details.map((d: { path: string }) => d.path).sort();
    for (const p of ["/input/title", "/input/lesson", "/input/category", "/input/severity", "/input/extra"])
      assert.ok(paths.includes(p), `missing ${p} in ${paths}`);
  });

  test("unknown context field and a non-object input are refused", async () => {
    const a = await t.call("gantry.about", { input: {}, context: { tenant: "x" } }).expect(400);
    assert.equal(a.body.details[0].path, "/context/tenant");
    const b = await t.call("gantry.about", { input: [] }).expect(400);
    assert.equal(b.body.details[0].path, "/input");
  });
});

describe("400: NUL characters", () => {
  // Postgres text cannot hold U+0000 (22021); the gateway refuses it before any service sees it.
  test("a NUL in a string value is refused, naming its JSON Pointer", async () => {
    const example = abilityById.get("lesson.record")!.example;
    const res = await t.call("lesson.record", { input: { ...example, title: "a\u0000b" } }).expect(400);
    assertErrorShape(res.body);
    assert.equal(res.body.code, "validation_failed");
    assert.equal(res.body.ability, "lesson.record");
    assert.deepEqual(
      res.body.details.map((d: { path: string }) => d.path),
      ["/input/title"],
    );
    assert.match(res.body.details[0].message, /NUL character.*not accepted.*remove it/);
    assert.match(res.body.error, /NUL characters.*remove them/);
  });

  test("nested values, array items and object keys, every place named", async () => {
    const example = abilityById.get("qa.checklist.create")!.example as { items: { check: string; severity: string }[] };
    const items = [...example.items, { check: "A cancelled booking refunds the deposit\u0000", severity: "high" }];
    const res = await t
      .call("qa.checklist.create", { input: { ...example, items, "odd/key\u0000": { "~x": ["ok", "\u0000"] } } })
      .expect(400);
    assert.equal(res.body.code, "validation_failed");
    assert.deepEqual(
      res.body.details.map((d: { path: string }) => d.path),
      ["/input/items/1/check", "/input/odd~1key\u0000", "/input/odd~1key\u0000/~0x/1"],
    );
    assert.match(res.body.details[1].message, /^\/input\/odd~1key\\u0000 contains a NUL character/);
  });
});

describe("401", () => {
  test("no credential", async () => {
    const res = await request(t.url).post("/v1/abilities/gantry.about").send({ input: {} }).expect(401);
    assertErrorShape(res.body);
    assert.equal(res.body.code, "unauthorized");
  });
  test("malformed key (bad checksum) and unknown well-formed key", async () => {
    const k = generateKey();
    const bad = k.slice(0, -1) + (k.endsWith("a") ? "b" : "a");
    await t.call("gantry.about", { input: {} }, bad).expect(401);
    await t.call("gantry.about", { input: {} }, k).expect(401);
    await t.call("gantry.about", { input: {} }, "not-a-key").expect(401);
  });
  test("expired key", async () => {
    const { key } = await t.insertKey({ expiresAt: new Date(Date.now() - 1000) });
    await t.call("gantry.about", { input: {} }, key).expect(401);
  });
});

describe("403", () => {
  test("scope excludes the ability", async () => {
    const { key } = await t.insertKey({ scopes: ["contact.*"] });
    const res = await t.call("lead.list", { input: {} }, key).expect(403);
    assert.equal(res.body.code, "forbidden");
    assert.match(res.body.error, /lead\.list/);
  });
});

describe("400 validation details in words", () => {
  test("one message per field, no raw regex: an empty name is only 'must not be empty'", async () => {
    const input = { title: "", lesson: "What was learnt.", category: "ops", severity: "low" };
    const empty = await t.call("lesson.record", { input }).expect(400);
    assert.deepEqual(
      empty.body.details.map((d: { path: string; code: string; message: string }) => [d.path, d.code, d.message]),
      [["/input/title", "minLength", "/input/title must not be empty"]],
    );
    const twoLines = await t.call("lesson.record", { input: { ...input, title: "one\ntwo" } }).expect(400);
    assert.deepEqual(
      twoLines.body.details.map((d: { path: string; code: string; message: string }) => [d.path, d.code, d.message]),
      [["/input/title", "pattern", "/input/title must be a single line (no line breaks)"]],
    );
    for (const text of [twoLines.body.error, twoLines.body.details[0].message]) assert.doesNotMatch(text, /\^\[\^/);
  });
});

describe("404", () => {
  test("no ability has the requested id", async () => {
    const res = await t.call("nope.nothing", { input: {} }).expect(404);
    assert.equal(res.body.code, "unknown_ability");
    assert.ok(res.headers["x-request-id"]);
    assert.equal(res.body.details[0].suggestion, undefined, "nothing close enough to suggest");
    assert.equal(res.body.reason, `${t.url}/docs (or GET /v1/abilities) lists the abilities this key may call.`);
  });
  test("a mistyped id gets the closest id the key may call as a suggestion, and the /docs link", async () => {
    const res = await t.call("contact.lst", { input: {} }).expect(404);
    assert.equal(res.body.code, "unknown_ability");
    assert.match(res.body.reason, /^Did you mean contact\.list\? /);
    assert.ok(res.body.reason.includes(`${t.url}/docs`), res.body.reason);
    assert.deepEqual(res.body.details, [
      {
        path: "/path/id",
        message: 'No ability has the id "contact.lst"',
        code: "ability_not_found",
        suggestion: "contact.list",
      },
    ]);
    // Only ids the key may call are suggested.
    const { key } = await t.insertKey({ scopes: ["lead.*"] });
    const narrow = await t.call("contact.lst", { input: {} }, key).expect(404);
    assert.doesNotMatch(narrow.body.reason, /contact\.list/);
    const lead = await t.call("lead.lsit", { input: {} }, key).expect(404);
    assert.equal(lead.body.details[0].suggestion, "lead.list");
    // The execute path suggests too (400, detail on /ability).
    const exec = await request(t.url)
      .post("/abilities/execute")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .send({ ability: "contact.lst", input: {} })
      .expect(400);
    assert.equal(exec.body.details[0].path, "/ability");
    assert.equal(exec.body.details[0].suggestion, "contact.list");
    assert.match(exec.body.reason, /Did you mean contact\.list\?/);
    // And discovery of one ability.
    const one = await request(t.url)
      .get("/v1/abilities/contact.lst")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .expect(404);
    assert.equal(one.body.details[0].suggestion, "contact.list");
  });
  test("unknown route still answers the ErrorResponse with a request id", async () => {
    const res = await request(t.url).get("/nowhere").expect(404);
    assertErrorShape(res.body);
    assert.ok(res.headers["x-request-id"]);
    assert.deepEqual(
      res.body.details.map((d: { code: string }) => d.code),
      ["route_not_found"],
    );
  });
  test("a record not found is 404 too, told apart by details[].code (record_not_found, not ability_not_found)", async () => {
    const unknown = await t.call("contact.nope", { input: {} }).expect(404);
    assert.deepEqual(
      unknown.body.details.map((d: { code: string }) => d.code),
      ["ability_not_found"],
    );
    // A service's own detail, naming the field.
    const contact = await t.call("contact.get", { input: { id: "ctc_01NOSUCHCONTACT0000000000" } }).expect(404);
    assert.equal(contact.body.code, "not_found");
    assert.deepEqual(
      contact.body.details.map((d: { code: string; path: string }) => [d.code, d.path]),
      [["record_not_found", "/input/id"]],
    );
    // A service that names no field still says which kind of 404 it is.
    const key = await t.call("key.revoke", { input: { id: "key_nosuchkey" } }).expect(404);
    assert.ok(
      key.body.details.some((d: { code: string }) => d.code === "record_not_found"),
      JSON.stringify(key.body),
    );
    assert.ok(!key.body.details.some((d: { code: string }) => d.code === "ability_not_found"));
  });
});

describe("405", () => {
  test("a wrong method names the allowed ones", async () => {
    const res = await request(t.url)
      .delete("/v1/abilities/gantry.about")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .expect(405);
    assert.equal(res.body.code, "method_not_allowed");
    assert.equal(res.headers.allow, "GET, POST");
    const exec = await request(t.url).get("/abilities/execute").expect(405);
    assert.equal(exec.headers.allow, "POST");
  });
});

describe("413 and 415", () => {
  test("body over MAX_BODY_BYTES", async () => {
    const res = await t.call("gantry.about", { input: { pad: "x".repeat(5000) } }).expect(413);
    assert.equal(res.body.code, "payload_too_large");
  });
  test("non-JSON content type", async () => {
    const res = await request(t.url)
      .post("/v1/abilities/gantry.about")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .set("Content-Type", "text/plain")
      .send("input")
      .expect(415);
    assert.equal(res.body.code, "unsupported_media_type");
  });
});

describe("501", () => {
  test("every declared ability answers: implemented or 501, never 404 or 500", async () => {
    const statuses = new Map<string, number>();
    for (const a of catalogue) {
      const res = await t.call(a.id, { input: a.example });
      statuses.set(a.id, res.status);
      // Implemented abilities may refuse the example (e.g. 404 not_found for a made-up record id),
      // but no declared id may be unknown to the gateway or fail server-side.
      const ok =
        res.status === 200 ||
        res.status === 501 ||
        (res.status >= 400 && res.status < 500 && res.body.code !== "unknown_ability");
      assert.ok(ok, `${a.id} answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (res.status === 404)
        assert.ok(
          res.body.details?.some((d: { code: string }) => d.code === "record_not_found"),
          `${a.id}: a 404 from a declared ability must say record_not_found: ${JSON.stringify(res.body)}`,
        );
    }
    assert.equal(statuses.size, 79);
    assert.equal(statuses.get("gantry.about"), 200);
  });
  test("a switched-off ability answers 501 naming it and why", async () => {
    const a = abilityById.get("web.browse")!;
    const res = await t.call(a.id, { input: a.example }).expect(501);
    assert.equal(res.body.code, "not_implemented");
    assert.equal(res.body.ability, "web.browse");
    // An API user has no repository: the reason links this gateway's /docs page, absolute.
    assert.equal(
      res.body.reason,
      `The operator switched web.browse off (GANTRY_DISABLED_ABILITIES on the web service). ${t.url}/docs#ability-web.browse shows each ability's status and which of this key's abilities are live.`,
    );
    assert.doesNotMatch(JSON.stringify(res.body), /docs\/abilities\.md/);
  });
});

describe("execute path parity", () => {
  test("same result as the per-ability path", async () => {
    const direct = await t.call("gantry.about", { input: {} }).expect(200);
    const viaExecute = await request(t.url)
      .post("/abilities/execute")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .send({ ability: "gantry.about", input: {} })
      .expect(200);
    assert.equal(viaExecute.body.ability, "gantry.about");
    assert.deepEqual(viaExecute.body.result, direct.body.result);
  });
  test("missing or unknown ability → 400; schema failure → 400 with details", async () => {
    const exec = (body: object) =>
      request(t.url).post("/abilities/execute").set("Authorization", `Bearer ${t.adminKey}`).send(body);
    const missing = await exec({ input: {} }).expect(400);
    assert.equal(missing.body.details[0].path, "/ability");
    const unknown = await exec({ ability: "nope.nothing", input: {} }).expect(400);
    assert.equal(unknown.body.details[0].path, "/ability");
    const invalid = await exec({ ability: "lesson.record", input: {} }).expect(400);
    assert.ok(invalid.body.details.length >= 3);
    const notWired = await exec({ ability: "web.browse", input: abilityById.get("web.browse")!.example }).expect(501);
    assert.equal(notWired.body.ability, "web.browse");
  });
});

describe("sub-tenants", () => {
  test("context.tenantId nests under the key's tenant for keys with the flag", async () => {
    const { key } = await t.insertKey({ tenant: "acme", subTenants: true });
    const res = await t.call("gantry.about", { input: {}, context: { tenantId: "shop1" } }, key).expect(200);
    assert.equal(res.body.result.tenant, "acme/shop1");
  });
  test("refused with 403 for keys without the flag, never ignored", async () => {
    const { key } = await t.insertKey({ tenant: "acme", subTenants: false });
    const res = await t.call("gantry.about", { input: {}, context: { tenantId: "shop1" } }, key).expect(403);
    assert.match(res.body.error, /sub-tenant/);
  });
  test("a tenantId that tries to escape the nesting is refused", async () => {
    const { key } = await t.insertKey({ tenant: "acme", subTenants: true });
    await t.call("gantry.about", { input: {}, context: { tenantId: "../beta" } }, key).expect(400);
    await t.call("gantry.about", { input: {}, context: { tenantId: "beta/x" } }, key).expect(400);
  });
});

describe("health and metrics", () => {
  test("GET /health reports every service", async () => {
    const res = await request(t.url).get("/health").expect(200);
    assert.equal(res.body.status, "ok");
    assert.deepEqual(Object.keys(res.body.services).sort(), [
      "connections",
      "content",
      "keys",
      "memory",
      "payments",
      "trust",
      "web",
      "workspace",
    ]);
  });
  test("GET /metrics exposes request counts and latency per ability and status", async () => {
    await t.call("gantry.about", { input: {} }).expect(200);
    const res = await request(t.url).get("/metrics").expect(200);
    assert.match(res.text, /gantry_requests_total\{ability="gantry.about",status="200"\} \d+/);
    assert.match(res.text, /gantry_request_duration_seconds_bucket\{le="[^"]+",ability="gantry.about",status="200"\}/);
  });
});
