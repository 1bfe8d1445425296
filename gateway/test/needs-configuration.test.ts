/**
 * Discovery says what a deployment is missing (issue 32 item 1). Without a search provider
 * (WEB_SEARXNG_URL unset) web.research answers 501, research.verify's search answers 501, and
 * without a Twilio account (TWILIO_* unset) message.send's channel sms answers 501: every surface a key can look at says so, names what to
 * set, and agrees with what the calls return; MCP does not offer a tool that cannot run. With the
 * variable set, the same abilities are live: the status comes from the service's configuration.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import request from "supertest";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";

interface Need {
  part: string | null;
  status: string;
  variables: string[];
  message: string;
}
interface Listed {
  id: string;
  status: string;
  live: boolean;
  needs: Need[];
}

/** MCP tools/list over plain HTTP (stateless 2025-11-25 request), as a host would send it. */
async function toolsList(t: TestStack): Promise<{ name: string; description: string }[]> {
  const res = await request(t.url)
    .post("/mcp")
    .set("Accept", "application/json, text/event-stream")
    .set("Authorization", `Bearer ${t.adminKey}`)
    .set("MCP-Protocol-Version", "2025-11-25")
    .send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })
    .expect(200);
  return res.body.result.tools;
}

const SEARCH_NEED = { part: null, status: "needs_configuration", variables: ["WEB_SEARXNG_URL"] };

describe("without a search provider or an SMS account", () => {
  let t: TestStack;
  before(async () => {
    // connections too: content asks it for an `sms` account before it answers 501.
    t = await startTestStack({ services: ["keys", "web", "content", "connections"] });
  });
  after(async () => t?.stop());

  const listed = async (): Promise<Map<string, Listed>> => {
    const res = await request(t.url).get("/v1/abilities").set("Authorization", `Bearer ${t.adminKey}`).expect(200);
    return new Map(res.body.abilities.map((a: Listed) => [a.id, a]));
  };
  const withoutMessage = (n: Need) => ({ part: n.part, status: n.status, variables: n.variables });

  test("GET /v1/abilities: needs_configuration with the variable; a live ability lists the part that is missing", async () => {
    const all = await listed();
    const research = all.get("web.research")!;
    assert.equal(research.status, "needs_configuration");
    assert.equal(research.live, false);
    assert.deepEqual(research.needs.map(withoutMessage), [SEARCH_NEED]);
    assert.match(research.needs[0].message, /WEB_SEARXNG_URL/);

    const verify = all.get("research.verify")!;
    assert.equal(verify.status, "live", "action capture runs");
    assert.deepEqual(verify.needs.map(withoutMessage), [{ ...SEARCH_NEED, part: "action search" }]);

    const send = all.get("message.send")!;
    assert.equal(send.status, "live", "channel email runs");
    assert.deepEqual(send.needs.map(withoutMessage), [
      {
        part: "channel sms",
        status: "needs_configuration",
        variables: ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM"],
      },
    ]);
    assert.deepEqual(all.get("web.browse")!.needs, [], "nothing missing: an empty list");

    const one = await request(t.url)
      .get("/v1/abilities/web.research")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .expect(200);
    assert.equal(one.body.status, "needs_configuration");
    assert.match(one.body.statusText, /501/);
  });

  test("the calls answer what discovery says: 501 for the missing parts", async () => {
    const research = await t
      .call("web.research", { input: { query: "current VAT rate for digital services in Nigeria" } })
      .expect(501);
    assert.match(research.body.error, /WEB_SEARXNG_URL/);
    await t.call("research.verify", { input: { query: "the VAT rate in Nigeria is 7.5%" } }).expect(501);
    const sms = await t.call("message.send", { input: { channel: "sms", to: "+15555550100", text: "hi" } }).expect(501);
    assert.match(sms.body.error, /TWILIO_ACCOUNT_SID/);
  });

  test("capability.discover reports the status and the needs", async () => {
    const res = await t.call("capability.discover", { input: { area: "web" } }).expect(200);
    const research = res.body.result.abilities.find((a: Listed) => a.id === "web.research");
    assert.equal(research.status, "needs_configuration");
    assert.equal(research.live, false);
    assert.deepEqual(research.needs.map(withoutMessage), [SEARCH_NEED]);
    assert.match(res.body.result.hint, /needs_configuration/);
    const msg = await t
      .call("capability.discover", { input: { query: "send a message", area: "message" } })
      .expect(200);
    const send = msg.body.result.abilities.find((a: Listed) => a.id === "message.send");
    assert.equal(send.needs[0].part, "channel sms");
  });

  test("/docs (Markdown for the key) shows the status and what to set", async () => {
    const res = await request(t.url)
      .get("/docs")
      .set("Accept", "text/markdown")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .expect(200);
    const section = (id: string) => {
      const from = res.text.indexOf(`#### ${id}\n`);
      assert.ok(from >= 0, `no section for ${id}`);
      return res.text.slice(from, res.text.indexOf("\n#### ", from + 1));
    };
    const research = section("web.research");
    assert.match(research, /Status: \*\*needs_configuration\*\*/);
    assert.match(research, /Not on this deployment: .*WEB_SEARXNG_URL/);
    assert.match(section("message.send"), /Status: \*\*live\*\*[\s\S]*Not on this deployment: channel sms: /);
    assert.doesNotMatch(section("web.browse"), /Not on this deployment/);
  });

  test("MCP tools/list leaves out the tool that cannot run and notes the missing part of the others", async () => {
    const tools = new Map((await toolsList(t)).map((x) => [x.name, x.description]));
    assert.ok(!tools.has("web.research"), "a tool that answers 501 is not offered");
    assert.ok(tools.has("web.browse"));
    assert.match(String(tools.get("message.send")), /Not on this deployment: channel sms: /);
    assert.match(String(tools.get("research.verify")), /action search: .*WEB_SEARXNG_URL/);
  });
});

describe("with a search provider configured", () => {
  let t: TestStack;
  before(async () => {
    // Nothing needs to answer there: discovery reflects configuration, not a probe of the provider.
    t = await startTestStack({ services: ["keys", "web"], env: { WEB_SEARXNG_URL: "http://127.0.0.1:9/" } });
  });
  after(async () => t?.stop());

  test("web.research and research.verify are live with nothing missing, and MCP offers them", async () => {
    const res = await request(t.url).get("/v1/abilities?area=web").set("Authorization", `Bearer ${t.adminKey}`);
    const research = res.body.abilities.find((a: Listed) => a.id === "web.research");
    assert.equal(research.status, "live");
    assert.deepEqual(research.needs, []);
    const verify = await request(t.url)
      .get("/v1/abilities/research.verify")
      .set("Authorization", `Bearer ${t.adminKey}`)
      .expect(200);
    assert.deepEqual([verify.body.status, verify.body.needs], ["live", []]);
    assert.ok((await toolsList(t)).some((x) => x.name === "web.research"));
  });
});
