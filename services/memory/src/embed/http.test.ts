/**
 * The HTTP embedding adapters against a local server speaking the real wire formats.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { OllamaEmbedder, OpenAIEmbedder } from "./http.ts";
import { LexicalHashEmbedder } from "./lexical.ts";
import { dot } from "./types.ts";
import { startFakeEmbeddings, type FakeEmbeddings } from "../testing/fake-embeddings.ts";

let fake: FakeEmbeddings;
before(async () => {
  fake = await startFakeEmbeddings({ apiKey: "sk-test" });
});
after(async () => fake?.close());

const lexical = new LexicalHashEmbedder();

test("OpenAI-compatible: POST /v1/embeddings with dimensions 768, bearer key, order by index", async () => {
  fake.requests.length = 0;
  const e = new OpenAIEmbedder({ baseUrl: fake.url, model: "text-embedding-3-small", apiKey: "sk-test" });
  assert.equal(e.model, "openai:text-embedding-3-small");
  const [a, b] = await e.embed(["first text", "second text"], "document");
  const req = fake.requests[0];
  assert.equal(req.path, "/v1/embeddings");
  assert.equal(req.headers.authorization, "Bearer sk-test");
  assert.deepEqual(req.body, {
    model: "text-embedding-3-small",
    input: ["first text", "second text"],
    dimensions: 768,
    encoding_format: "float",
  });
  const [la, lb] = await lexical.embed(["first text", "second text"], "document");
  assert.ok(dot(a, la) > 0.9999, "data re-ordered by index");
  assert.ok(dot(b, lb) > 0.9999);
  assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
});

test("a base URL ending in /v1 is not doubled", async () => {
  fake.requests.length = 0;
  await new OpenAIEmbedder({ baseUrl: `${fake.url}/v1/`, model: "m", apiKey: "sk-test" }).embed(["x"], "query");
  assert.equal(fake.requests[0].path, "/v1/embeddings");
});

test("Ollama: POST /api/embed with nomic-embed-text's query/document prefixes", async () => {
  fake.requests.length = 0;
  const e = new OllamaEmbedder({ baseUrl: fake.url, model: "nomic-embed-text" });
  assert.equal(e.model, "ollama:nomic-embed-text");
  await e.embed(["which food"], "query");
  await e.embed(["Biscuit eats salmon"], "document");
  assert.equal(fake.requests[0].path, "/api/embed");
  assert.deepEqual(fake.requests[0].body, {
    model: "nomic-embed-text",
    input: ["search_query: which food"],
    truncate: true,
  });
  assert.deepEqual(fake.requests[1].body.input, ["search_document: Biscuit eats salmon"]);
  const plain = new OllamaEmbedder({ baseUrl: fake.url, model: "mxbai-embed-large", queryPrefix: "Q: " });
  await plain.embed(["x"], "query");
  await plain.embed(["y"], "document");
  assert.deepEqual(fake.requests[2].body.input, ["Q: x"]);
  assert.deepEqual(fake.requests[3].body.input, ["y"], "no default prefixes for other models");
});

test("batches large inputs", async () => {
  fake.requests.length = 0;
  const e = new OllamaEmbedder({ baseUrl: fake.url, model: "m", batchSize: 2 });
  const out = await e.embed(["a", "b", "c", "d", "e"], "document");
  assert.equal(out.length, 5);
  assert.deepEqual(
    fake.requests.map((r) => r.body.input.length),
    [2, 2, 1],
  );
});

test("failures: HTTP errors, wrong dimensions, non-JSON, unreachable, timeout", async () => {
  const e = new OpenAIEmbedder({ baseUrl: fake.url, model: "m", apiKey: "sk-test", timeoutMs: 300 });
  const code = (c: string) => (err: { code?: string }) => err.code === c;
  await assert.rejects(
    new OpenAIEmbedder({ baseUrl: fake.url, model: "m", apiKey: "wrong" }).embed(["x"], "query"),
    (err: { code?: string; message?: string }) => err.code === "upstream_failed" && /HTTP 401/.test(err.message ?? ""),
  );
  try {
    fake.fail = { status: 503 };
    await assert.rejects(e.embed(["x"], "query"), code("upstream_failed"));
    fake.fail = { dimensions: 512 };
    await assert.rejects(e.embed(["x"], "query"), (err: { message?: string }) =>
      /512 dimensions/.test(err.message ?? ""),
    );
    fake.fail = { garbage: true };
    await assert.rejects(e.embed(["x"], "query"), code("upstream_failed"));
    fake.fail = { delayMs: 1_000 };
    await assert.rejects(e.embed(["x"], "query"), code("timeout"));
  } finally {
    fake.fail = undefined;
  }
  await assert.rejects(
    new OllamaEmbedder({ baseUrl: "http://127.0.0.1:9", model: "m" }).embed(["x"], "query"),
    code("upstream_failed"),
  );
});
