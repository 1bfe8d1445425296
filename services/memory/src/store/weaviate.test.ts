/**
 * The Weaviate store against a real Weaviate server: the same behavioural suite as the Postgres
 * store. Runs when `WEAVIATE_URL` is set or a `weaviate-server` binary is found (see
 * `testing/weaviate-server.ts`; `.ci/run` builds one); otherwise it is skipped with the reason.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createLogger } from "@gantry/kit";
import { LexicalHashEmbedder } from "../embed/lexical.ts";
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

  test("a collection made before memories had a vertical gets the property at first use: older memories have none, a later one is found by its vertical", async () => {
    const collection = `legacy-${randomBytes(4).toString("hex")}`;
    const name = store.collectionName(collection);
    // The collection as the store created it before the `vertical` property existed.
    const res = await fetch(`${endpoint.url}/v1/schema`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        class: name,
        description: `Gantry memory collection "${collection}"`,
        vectorizer: "none",
        vectorIndexConfig: { distance: "cosine" },
        multiTenancyConfig: { enabled: true, autoTenantCreation: true, autoTenantActivation: true },
        properties: [
          { name: "gantryId", dataType: ["text"], tokenization: "field" },
          { name: "text", dataType: ["text"] },
          { name: "model", dataType: ["text"], tokenization: "field" },
          { name: "dimensions", dataType: ["int"] },
          { name: "createdAt", dataType: ["number"] },
          { name: "updatedAt", dataType: ["number"] },
          { name: "metadataJson", dataType: ["text"], indexFilterable: false, indexSearchable: false },
        ],
      }),
    });
    assert.equal(res.status, 200, await res.text());
    const embedder = new LexicalHashEmbedder();
    const save = async (id: string, text: string, vertical?: string) =>
      store.save({
        tenant: "acme",
        collection,
        id,
        newId: id,
        text,
        ...(vertical ? { vertical } : {}),
        vector: (await embedder.embed([text], "document"))[0],
        model: embedder.model,
        dimensions: embedder.dimensions,
        now: Date.now(),
        dedupThreshold: 0.97,
      });
    const search = async (vertical?: string) =>
      (
        await store.search("acme", collection, (await embedder.embed(["harbour ferry"], "query"))[0], {
          limit: 10,
          vertical,
          now: Date.now(),
          halfLifeMs: 0,
        })
      ).map((h) => [h.id, h.vertical]);
    assert.equal((await save("old-1", "The harbour ferry leaves at nine.")).memory.vertical, null);
    assert.deepEqual(await search("clinic"), []);
    assert.equal(
      (await save("new-1", "The harbour ferry to the clinic leaves at ten.", "clinic")).memory.vertical,
      "clinic",
    );
    assert.deepEqual(await search("clinic"), [["new-1", "clinic"]]);
    assert.deepEqual((await search()).sort(), [
      ["new-1", "clinic"],
      ["old-1", null],
    ]);
  });
}
