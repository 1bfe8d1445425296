/**
 * document.summarize `method: model`: the OpenAI-compatible adapter against a local server speaking
 * that wire format (POST /v1/chat/completions, bearer key, model, messages, temperature 0), its
 * failures mapped to 502, and the refusal when no endpoint is configured.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { type ContentTest, startContent } from "./test/helpers.ts";

let server: Server;
let t: ContentTest;
const requests: Array<{ path: string; auth: string | undefined; body: any }> = [];
let fail = false;

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      requests.push({ path: req.url ?? "", auth: req.headers.authorization, body });
      if (fail) {
        res.writeHead(500, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: "overloaded", type: "server_error" } }));
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: "local-summarizer-1",
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: "  Revenue grew 12% on care plans.  " },
              finish_reason: "stop",
            },
          ],
          usage: { prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as { port: number }).port;
  t = await startContent({
    CONTENT_SUMMARY_MODEL_URL: `http://127.0.0.1:${port}/v1`,
    CONTENT_SUMMARY_MODEL: "local-summarizer",
    CONTENT_SUMMARY_MODEL_KEY: "sk-test-model-key",
  });
});
after(async () => {
  await t?.stop();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

const text = "Quarterly report. Revenue grew 12% on care plans. Lunch was pizza.";

test("method model: one chat completion in the OpenAI wire format; the answer and the model named", async () => {
  const r = await t.s.call("document.summarize", { text, length: "short", method: "model" });
  assert.deepEqual(r, {
    summary: "Revenue grew 12% on care plans.",
    length: "short",
    method: "model",
    model: "local-summarizer-1",
    sentences: [],
    inputChars: text.length,
    inputSentences: 3,
  });
  const req = requests.at(-1)!;
  assert.equal(req.path, "/v1/chat/completions");
  assert.equal(req.auth, "Bearer sk-test-model-key");
  assert.equal(req.body.model, "local-summarizer");
  assert.equal(req.body.temperature, 0);
  assert.equal(req.body.messages[0].role, "system");
  assert.match(req.body.messages[0].content, /one to three sentences/);
  assert.deepEqual(req.body.messages[1], { role: "user", content: text });

  // The default stays extractive, with no call to the model.
  const before = requests.length;
  const e = await t.s.call("document.summarize", { text });
  assert.equal(e.method, "extractive");
  assert.equal(requests.length, before);
});

test("method model: an endpoint error is a 502", async () => {
  fail = true;
  try {
    await assert.rejects(t.s.call("document.summarize", { text, method: "model" }), {
      code: "upstream_failed",
    });
  } finally {
    fail = false;
  }
});

test("method model without an endpoint is refused naming the field", async () => {
  const plain = await startContent();
  try {
    await assert.rejects(plain.s.call("document.summarize", { text, method: "model" }), (err: any) => {
      assert.equal(err.code, "validation_failed");
      assert.deepEqual(
        err.details.map((d: any) => [d.path, d.code]),
        [["/input/method", "model_not_configured"]],
      );
      return true;
    });
  } finally {
    await plain.stop();
  }
});
