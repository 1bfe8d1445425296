/**
 * The gateway's own abilities behind the executor interface the area services have: the
 * Dispatcher routes to it like to any owner, it describes what it has wired, and an owned id
 * without a handler answers 501. (Through real processes: status-classes.test.ts, mcp.test.ts.)
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { catalogue } from "@gantry/proto/catalogue";
import { GantryError, type CallContext } from "@gantry/kit";
import { MetaExecutor, metaHandlers, type MetaHandler } from "../src/meta/index.ts";
import { Dispatcher } from "../src/dispatch.ts";
import { LiveStatus } from "../src/discovery/live-status.ts";

const call: CallContext = {
  requestId: "req_test",
  tenant: "acme",
  keyTenant: "acme",
  keyId: "key_1",
  scopes: ["*"],
  collections: [],
  products: [],
  admin: false,
  subTenants: false,
};
const edge = { baseUrl: "https://gantry.example", rateLimit: { limit: 7, windowSeconds: 60 } };
const addrs = {
  keys: "127.0.0.1:1",
  connections: "127.0.0.1:1",
  payments: "127.0.0.1:1",
  memory: "127.0.0.1:1",
  content: "127.0.0.1:1",
  trust: "127.0.0.1:1",
  workspace: "127.0.0.1:1",
  web: "127.0.0.1:1",
};

function setup(handlers: Record<string, MetaHandler> = metaHandlers) {
  const dispatcher = new Dispatcher(addrs, 1_000);
  const liveStatus = new LiveStatus(dispatcher, () => 0);
  dispatcher.mount("gateway", new MetaExecutor(handlers, { version: "0.1.0+test", maxBodyBytes: 1024, liveStatus }));
  return { dispatcher, liveStatus };
}

describe("MetaExecutor", () => {
  test("the Dispatcher runs gantry.about through it with the call's edge", async () => {
    const { dispatcher } = setup();
    try {
      const result = JSON.parse((await dispatcher.execute("gateway", "gantry.about", "{}", call, edge)).resultJson);
      assert.equal(result.version, "0.1.0+test");
      assert.equal(result.tenant, "acme");
      assert.deepEqual(result.limits.rateLimit, edge.rateLimit);
      assert.equal(result.urls.docs, "https://gantry.example/docs");
    } finally {
      dispatcher.close();
    }
  });

  test("it describes every gateway-owned ability; live status reads it like any owner's", async () => {
    const { dispatcher, liveStatus } = setup({ "gantry.about": metaHandlers["gantry.about"] });
    try {
      const owned = catalogue
        .filter((a) => a.service === "gateway")
        .map((a) => a.id)
        .sort();
      const described = (await dispatcher.describe("gateway"))!;
      assert.deepEqual(described.map((a) => a.id).sort(), owned);
      const status = await liveStatus.of(owned);
      assert.equal(status.get("gantry.about"), "live");
      assert.equal(status.get("capability.discover"), "not_wired");
    } finally {
      dispatcher.close();
    }
  });

  test("an owned id without a handler answers 501", async () => {
    const { dispatcher } = setup({});
    try {
      await assert.rejects(
        dispatcher.execute("gateway", "gantry.about", "{}", call, edge),
        (err: unknown) => err instanceof GantryError && err.code === "not_implemented",
      );
    } finally {
      dispatcher.close();
    }
  });
});
