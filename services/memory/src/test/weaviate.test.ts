/**
 * The memory abilities through the gateway with `MEMORY_STORE=weaviate` against a real Weaviate
 * server: the service wiring of the Weaviate store (the store itself is covered by the shared suite
 * in store/weaviate.test.ts). Skipped with the reason when no Weaviate is available.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { startWeaviate, weaviateUnavailable, type WeaviateEndpoint } from "../testing/weaviate-server.ts";

const skip = weaviateUnavailable();

if (skip) {
  test("memory abilities on the Weaviate store", { skip }, () => {});
} else {
  let t: TestStack;
  let weaviate: WeaviateEndpoint;
  let acme: string;
  let globex: string;
  let petsOnly: string;

  before(async () => {
    weaviate = await startWeaviate();
    t = await startTestStack({
      services: ["keys", "memory"],
      env: {
        MEMORY_STORE: "weaviate",
        WEAVIATE_URL: weaviate.url,
        WEAVIATE_GRPC_PORT: String(weaviate.grpcPort),
        WEAVIATE_PREFIX: `G${randomBytes(4).toString("hex")}`,
      },
    });
    acme = (await t.insertKey({ tenant: "acme", collections: ["notes", "pets"] })).key;
    globex = (await t.insertKey({ tenant: "globex", collections: ["notes"] })).key;
    petsOnly = (await t.insertKey({ tenant: "acme", collections: ["pets"] })).key;
  });
  after(async () => {
    await t?.stop();
    await weaviate?.stop();
  });

  describe("memory abilities on the Weaviate store", () => {
    test("save, near-duplicate, filtered search, recall, forget; scope and tenants hold", async () => {
      const a = (
        await t
          .call(
            "memory.save",
            {
              input: {
                text: "Biscuit is allergic to chicken; use the salmon kibble.",
                metadata: { kind: "vet", age: 4 },
              },
            },
            acme,
          )
          .expect(200)
      ).body.result;
      assert.equal(a.action, "created");
      await t
        .call(
          "memory.save",
          { input: { text: "Rex needs two long walks a day.", metadata: { kind: "care", age: 7 } } },
          acme,
        )
        .expect(200);
      const dup = (
        await t
          .call(
            "memory.save",
            { input: { text: "Biscuit is allergic to chicken; use the salmon kibble!", metadata: { pet: "biscuit" } } },
            acme,
          )
          .expect(200)
      ).body.result;
      assert.equal(dup.deduplicated, true);
      assert.equal(dup.id, a.id);

      const r = (
        await t
          .call(
            "memory.search",
            { input: { query: "what is Biscuit allergic to", filter: { kind: "vet", age: { $lt: 5 } } } },
            acme,
          )
          .expect(200)
      ).body.result;
      assert.deepEqual(
        r.hits.map((h: { id: string }) => h.id),
        [a.id],
      );
      assert.deepEqual(r.hits[0].metadata, { kind: "vet", age: 4, pet: "biscuit" });
      const none = (
        await t
          .call(
            "memory.search",
            { input: { query: "Biscuit chicken walks", filter: { kind: { $ne: "zzz" } } } },
            globex,
          )
          .expect(200)
      ).body.result;
      assert.deepEqual(none.hits, []);
      await t.call("memory.search", { input: { query: "x", collection: "notes" } }, petsOnly).expect(403);

      const recall = (await t.call("memory.recall", { input: { query: "Biscuit chicken", k: 1 } }, acme).expect(200))
        .body.result;
      assert.match(recall.block, /^<retrieved_memories collection="notes"/);
      assert.equal(recall.hits[0].id, a.id);

      const dry = (
        await t.call("memory.forget", { input: { filter: { kind: "care" }, dryRun: true } }, acme).expect(200)
      ).body.result;
      assert.equal(dry.matched, 1);
      await t.call("memory.forget", { input: { id: a.id } }, globex).expect(404);
      const gone = (await t.call("memory.forget", { input: { id: a.id } }, acme).expect(200)).body.result;
      assert.equal(gone.forgotten, 1);
      const left = (await t.call("memory.search", { input: { query: "Biscuit chicken" } }, acme).expect(200)).body
        .result;
      assert.ok(!left.hits.some((h: { id: string }) => h.id === a.id));
    });
  });
}
