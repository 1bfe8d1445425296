/**
 * Issue 20, item 4, through the real service (Postgres, NATS, gRPC): with the default embedder
 * (use-lite-512-v1) "preferred messaging channel" finds "Ada prefers WhatsApp" first, not the memory
 * about Lagos, and every result says which model matched and how; `EMBEDDER=lexical` still works
 * and says it matches words.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { repoRoot } from "@gantry/kit";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";
import { LexicalHashEmbedder } from "../embed/lexical.ts";
import { vectorToBuffer } from "../embed/types.ts";

const ADA = [
  { text: "Ada moved to Lagos last year and loves the city.", metadata: { person: "ada" } },
  { text: "Ada prefers WhatsApp for quick questions.", metadata: { person: "ada" } },
  { text: "Ada's invoices go to the finance team on the first of the month.", metadata: { person: "ada" } },
  { text: "Ada has two cats and a garden full of tomatoes.", metadata: { person: "ada" } },
];
const caller = { tenant: "acme", collections: ["contacts", "legacy"] };

function runReembed(env: Record<string, string>, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["services/memory/src/reembed.ts", ...args], {
      cwd: repoRoot(),
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
  });
}

describe("default embedder: use-lite-512-v1 (semantic)", () => {
  let s: ServiceHarness<Context>;
  before(async () => {
    s = await startService<Context>("memory");
    for (const m of ADA) {
      const saved = await s.call("memory.save", m, caller);
      assert.equal(saved.action, "created");
      assert.equal(saved.model, "use-lite-512-v1");
    }
  });
  after(async () => s?.stop());

  test("'preferred messaging channel' ranks the WhatsApp memory first, above Lagos", async () => {
    const r = await s.call("memory.search", { query: "preferred messaging channel", limit: 4 }, caller);
    assert.equal(r.model, "use-lite-512-v1");
    assert.equal(r.matching, "semantic");
    assert.equal(r.hits[0].text, "Ada prefers WhatsApp for quick questions.");
    const lagos = r.hits.findIndex((h: { text: string }) => h.text.includes("Lagos"));
    assert.ok(lagos === -1 || r.hits[0].score > r.hits[lagos].score + 0.1, JSON.stringify(r.hits));
  });

  test("other paraphrases find their memory too", async () => {
    const first = async (query: string) =>
      (await s.call("memory.search", { query, limit: 1 }, caller)).hits[0]?.text as string;
    assert.match(await first("where does she live"), /Lagos/);
    assert.match(await first("billing contact"), /invoices/);
    assert.match(await first("does she have pets"), /cats/);
  });

  test("memory.recall reports the model and how it matched, and leads with the same memory", async () => {
    const r = await s.call("memory.recall", { query: "preferred messaging channel", k: 2 }, caller);
    assert.equal(r.model, "use-lite-512-v1");
    assert.equal(r.matching, "semantic");
    assert.equal(r.hits[0].text, "Ada prefers WhatsApp for quick questions.");
    assert.match(r.block, /\[1\] id=mem_\S+ .*\n\s+Ada prefers WhatsApp/);
  });

  test("stored vectors: 768 dimensions recorded with the model, unit length, the padding zero", async () => {
    const { rows } = await s.db.query<{ model: string; dimensions: number; vector: Buffer }>(
      `SELECT model, dimensions, vector FROM memory.memories WHERE tenant = 'acme' AND collection = 'contacts'`,
    );
    assert.equal(rows.length, ADA.length);
    for (const r of rows) {
      assert.equal(r.model, "use-lite-512-v1");
      assert.equal(r.dimensions, 768);
      assert.equal(r.vector.byteLength, 768 * 4);
      const v = new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength));
      assert.ok(Math.abs(v.reduce((a, x) => a + x * x, 0) - 1) < 1e-4);
      assert.ok(v.subarray(512).every((x) => x === 0));
    }
    const { rows: coll } = await s.db.query(
      `SELECT model, dimensions FROM memory.memory_collections WHERE tenant = 'acme' AND name = 'contacts'`,
    );
    assert.deepEqual(coll, [{ model: "use-lite-512-v1", dimensions: 768 }]);
  });

  test("near-duplicates are near-identical wording: the same words merge, facts a semantic model rates alike do not", async () => {
    const whatsapp = (await s.call("memory.search", { query: "WhatsApp", limit: 1 }, caller)).hits[0];
    const dup = await s.call("memory.save", { text: "ADA PREFERS WHATSAPP FOR QUICK QUESTIONS!" }, caller);
    assert.equal(dup.action, "deduplicated");
    assert.equal(dup.id, whatsapp.id);
    assert.ok(dup.similarity >= 0.97);
    // use-lite-512-v1 scores each of these pairs ≥ 0.99: merging them would overwrite one fact with another.
    for (const [a, b] of [
      ["Invoice INV-1001 is paid.", "Invoice INV-1002 is paid."],
      ["The clinic closes at 6pm on Fridays.", "The clinic closes at 5pm on Fridays."],
      ["Call Ada at +234 801 234 5678.", "Call Ada at +234 801 234 5679."],
    ]) {
      const first = await s.call("memory.save", { text: a }, caller);
      const second = await s.call("memory.save", { text: b }, caller);
      assert.equal(second.action, "created", `${b} is not a duplicate of ${a}`);
      assert.notEqual(second.id, first.id);
    }
  });

  test("upgrading: a collection saved with lexical-hash-v1 answers 409 until the re-embed command converts it", async () => {
    // What a deployment from before the default changed holds: rows memory.save wrote with lexical-hash-v1.
    const lexical = new LexicalHashEmbedder();
    const texts = ["Ada's favourite food is jollof rice.", "Ada's flight to Nairobi leaves on Monday morning."];
    const vectors = await lexical.embed(texts, "document");
    await s.db.query(
      `INSERT INTO memory.memory_collections (tenant, name, model, dimensions) VALUES ('acme', 'legacy', 'lexical-hash-v1', 768)`,
    );
    for (const [i, text] of texts.entries()) {
      await s.db.query(
        `INSERT INTO memory.memories (tenant, id, collection, text, vector, model, dimensions)
         VALUES ('acme', $1, 'legacy', $2, $3, 'lexical-hash-v1', 768)`,
        [`mem_legacy${i}`, text, vectorToBuffer(vectors[i])],
      );
    }
    await assert.rejects(
      s.call("memory.search", { query: "what does she like to eat", collection: "legacy" }, caller),
      {
        code: "conflict",
        message: /holds vectors of the model lexical-hash-v1; this service embeds with use-lite-512-v1/,
      },
    );

    const env = { DATABASE_URL: s.env.DATABASE_URL, NATS_URL: s.env.NATS_URL };
    const done = await runReembed(env, ["--tenant", "acme", "--collection", "legacy"]);
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, /re-embedded acme\/legacy \(2 memories, lexical-hash-v1\) with use-lite-512-v1/);
    const r = await s.call("memory.search", { query: "what does she like to eat", collection: "legacy" }, caller);
    assert.equal(r.matching, "semantic");
    assert.equal(r.hits[0].id, "mem_legacy0");
    const skip = await runReembed(env, ["--tenant", "acme", "--collection", "legacy"]);
    assert.match(skip.out, /skip acme\/legacy .*already use-lite-512-v1/);
  });
});

describe("EMBEDDER=lexical (lexical-hash-v1)", () => {
  let s: ServiceHarness<Context>;
  before(async () => {
    s = await startService<Context>("memory", { EMBEDDER: "lexical" });
    for (const m of ADA) await s.call("memory.save", m, caller);
  });
  after(async () => s?.stop());

  test("matches shared words, and says the search was lexical", async () => {
    const r = await s.call("memory.search", { query: "WhatsApp questions", limit: 2 }, caller);
    assert.equal(r.model, "lexical-hash-v1");
    assert.equal(r.matching, "lexical");
    assert.equal(r.hits[0].text, "Ada prefers WhatsApp for quick questions.");
    const recall = await s.call("memory.recall", { query: "tomatoes garden" }, caller);
    assert.equal(recall.matching, "lexical");
    assert.match(recall.hits[0].text, /tomatoes/);
  });

  test("a query sharing no word with any memory finds nothing by meaning", async () => {
    const r = await s.call("memory.search", { query: "preferred messaging channel", limit: 4 }, caller);
    assert.ok(
      r.hits.every((h: { similarity: number }) => h.similarity < 0.1),
      JSON.stringify(r.hits),
    );
  });
});
