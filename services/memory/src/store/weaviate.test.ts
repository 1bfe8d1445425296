/**
 * The Weaviate store against a real Weaviate server: the same behavioural suite as the Postgres
 * store. Runs when `WEAVIATE_URL` is set or a `weaviate-server` binary is found (see
 * `testing/weaviate-server.ts`; `.ci/run` builds one); otherwise it is skipped with the reason.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createLogger } from "@gantry/kit";
import { encodeName, weaviateTenant, WeaviateStore } from "./weaviate.ts";
import { storeSuite } from "./store.suite.ts";
import { startWeaviate, weaviateUnavailable, type WeaviateEndpoint } from "../testing/weaviate-server.ts";

const skip = weaviateUnavailable();

describe("weaviate naming", () => {
  test("collection and tenant names are injective encodings within Weaviate's alphabets", () => {
    assert.equal(encodeName("clinic-notes"), "clinic_2dnotes");
    assert.notEqual(encodeName("a_b"), encodeName("a-b"));
    assert.notEqual(encodeName("Notes"), encodeName("notes"));
    assert.match(weaviateTenant("acme/shop1"), /^[A-Za-z0-9_-]{1,64}$/);
    assert.notEqual(weaviateTenant("acme/shop1"), weaviateTenant("acme_2fshop1"));
    assert.notEqual(weaviateTenant("Acme"), weaviateTenant("acme"));
    const long = weaviateTenant("t".repeat(100));
    assert.match(long, /^H[0-9a-f]{63}$/);
  });
});

if (skip) {
  test("weaviate store suite", { skip }, () => {});
} else {
  let endpoint: WeaviateEndpoint;
  let store: WeaviateStore;
  before(async () => {
    endpoint = await startWeaviate();
    store = new WeaviateStore({
      url: endpoint.url,
      grpcPort: endpoint.grpcPort,
      prefix: `T${randomBytes(4).toString("hex")}`,
      index: (process.env.WEAVIATE_INDEX as "hnsw" | "flat" | undefined) ?? "hnsw",
      log: createLogger("memory-test", "silent"),
    });
    await store.start();
  });
  after(async () => {
    await store?.dropAll().catch(() => {});
    await store?.close();
    await endpoint?.stop();
  });
  storeSuite("weaviate", { store: () => store });
}
