/**
 * use-lite-512-v1 (the default embedder): the real model from its npm package, loaded by the
 * package's own code in a worker thread. It matches by meaning where lexical-hash-v1 cannot; the
 * service falls back to lexical-hash-v1 when the model cannot load, except where asked not to.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "@gantry/infra/testing/stack.ts";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { LexicalHashEmbedder } from "./lexical.ts";
import { loadEmbedder, type EmbedderConfig } from "./index.ts";
import { SentenceEmbedder } from "./sentence.ts";
import { dot } from "./types.ts";

let e: SentenceEmbedder;
before(async () => {
  e = await SentenceEmbedder.load();
});
after(async () => e?.close());

const lexical = new LexicalHashEmbedder();
const cos = async (embedder: { embed: SentenceEmbedder["embed"] }, a: string, b: string) => {
  const [va, vb] = await embedder.embed([a, b], "document");
  return dot(va, vb);
};

const WHATSAPP = "Ada prefers WhatsApp for quick questions";
const LAGOS = "Ada moved to Lagos last year and loves the city";

test("named use-lite-512-v1, semantic, 768 dimensions: the model's 512 values, unit length, then zeros", async () => {
  assert.equal(e.model, "use-lite-512-v1");
  assert.equal(e.matching, "semantic");
  assert.equal(e.dimensions, 768);
  const [v] = await e.embed([WHATSAPP], "document");
  assert.equal(v.length, 768);
  assert.ok(Math.abs(dot(v, v) - 1) < 1e-5);
  assert.ok(
    v.subarray(512).every((x) => x === 0),
    "padding is zeros",
  );
  assert.ok(v.subarray(0, 512).filter((x) => x !== 0).length > 500, "the model's values are dense");
  const [again] = await e.embed([WHATSAPP], "query");
  assert.ok(dot(v, again) > 0.99999, "deterministic; queries and documents embed alike");
});

test("the issue's example: meaning decides, where lexical-hash-v1 sees no shared word at all", async () => {
  const q = "preferred messaging channel";
  const whatsapp = await cos(e, q, WHATSAPP);
  const lagos = await cos(e, q, LAGOS);
  assert.ok(whatsapp > lagos + 0.15, `WhatsApp ${whatsapp} vs Lagos ${lagos}`);
  // No word in common with either: lexical-hash-v1 sees hash noise (|cos| < 0.1) either way.
  assert.ok(Math.abs(await cos(lexical, q, WHATSAPP)) < 0.1, "lexical cannot tell");
  assert.ok(Math.abs(await cos(lexical, q, LAGOS)) < 0.1, "lexical cannot tell");
  assert.ok((await cos(e, "the dog is sick", "my puppy feels unwell")) > 0.4, "a paraphrase without shared words");
  assert.ok((await cos(e, "the dog is sick", "quarterly tax filing deadline")) < 0.2);
});

test("batches: many texts in several worker messages give the same vectors as one by one", async () => {
  const small = await SentenceEmbedder.load({ batchSize: 2 });
  try {
    const texts = ["alpha memory", "beta note", WHATSAPP, LAGOS, "a fifth text"];
    const batched = await small.embed(texts, "document");
    assert.equal(batched.length, 5);
    for (const [i, t] of texts.entries()) {
      const [one] = await e.embed([t], "document");
      assert.ok(dot(batched[i], one) > 0.99999, `text ${i} in order`);
    }
    assert.deepEqual(await small.embed([], "document"), []);
  } finally {
    await small.close();
  }
});

test("a closed embedder answers 503 instead of hanging", async () => {
  const closing = await SentenceEmbedder.load();
  await closing.close();
  await assert.rejects(closing.embed(["x"], "query"), { code: "unavailable" });
});

test("a model that cannot load rejects load() with the reason", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gantry-sentence-"));
  const broken = join(dir, "broken-worker.mjs");
  writeFileSync(broken, `import "@energetic-ai/no-such-model-package";\n`);
  await assert.rejects(SentenceEmbedder.load({ workerUrl: pathToFileURL(broken) }), /could not load/);
  const silent = join(dir, "silent-worker.mjs");
  writeFileSync(silent, "setInterval(() => {}, 1000);\n");
  await assert.rejects(
    SentenceEmbedder.load({ workerUrl: pathToFileURL(silent), loadTimeoutMs: 300 }),
    /did not load within 300 ms/,
  );
});

test("EMBEDDER=sentence falls back to lexical-hash-v1 with a warning; the re-embed command's strict mode does not", async () => {
  const config = { EMBEDDER: "sentence", EMBEDDING_TIMEOUT_MS: 30_000 } as EmbedderConfig;
  const warnings: string[] = [];
  const log = { warn: (_o: object, msg?: string) => void warnings.push(msg ?? "") };
  const failing = () => Promise.reject(new Error("the sentence model could not load: ENOENT model.json"));
  const fallback = await loadEmbedder(config, { log, loadSentence: failing });
  assert.equal(fallback.model, "lexical-hash-v1");
  assert.equal(fallback.matching, "lexical");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /use-lite-512-v1 model could not load; falling back to lexical-hash-v1/);
  await assert.rejects(loadEmbedder(config, { log, loadSentence: failing, fallback: false }), /ENOENT model\.json/);
  const real = await loadEmbedder(config, { log });
  try {
    assert.equal(real.model, "use-lite-512-v1");
  } finally {
    await real.close?.();
  }
  assert.equal((await loadEmbedder({ ...config, EMBEDDER: "lexical" }, { log })).model, "lexical-hash-v1");
  assert.equal(warnings.length, 1, "no warning when the model loads or lexical is chosen");
});

test("with idleMs, the model leaves memory when unused and the next call loads it again, with the same vectors", async () => {
  const idle = await SentenceEmbedder.load({ idleMs: 200 });
  try {
    const [before] = await idle.embed([WHATSAPP], "document");
    await eventually(async () => !idle.loaded);
    assert.equal(idle.loaded, false, "the worker was ended");
    const [after] = await idle.embed([WHATSAPP], "document");
    assert.equal(idle.loaded, true);
    assert.ok(dot(before, after) > 0.99999);
  } finally {
    await idle.close();
  }
});
