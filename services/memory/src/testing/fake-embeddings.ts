/**
 * @module memory/testing/fake-embeddings
 * A local HTTP server speaking exactly the two embedding wire formats Gantry supports, for tests:
 *
 *  - OpenAI `POST /v1/embeddings` `{model, input: string | string[], dimensions?, encoding_format?}` →
 *    `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}` (401 without
 *    the expected bearer token when one is configured; data returned in reverse order, as the spec
 *    allows, so clients must use `index`);
 *  - Ollama `POST /api/embed` `{model, input: string | string[], truncate?}` →
 *    `{model, embeddings: [[…]], total_duration, load_duration, prompt_eval_count}`.
 *
 * Vectors come from lexical-hash-v1 over the received text (prefix included), so rankings through the
 * fake are meaningful. `fail` injects failures; every request is recorded.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { LexicalHashEmbedder } from "../embed/lexical.ts";

export interface FakeEmbeddings {
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }>;
  /** Next requests answer with this instead of embeddings. */
  fail: { status?: number; dimensions?: number; delayMs?: number; garbage?: boolean } | undefined;
  close: () => Promise<void>;
}

export async function startFakeEmbeddings(opts: { apiKey?: string } = {}): Promise<FakeEmbeddings> {
  const lexical = new LexicalHashEmbedder();
  const state: FakeEmbeddings = { url: "", requests: [], fail: undefined, close: async () => {} };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(typeof body === "string" ? body : JSON.stringify(body));
      };
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        return send(400, { error: { message: "invalid JSON" } });
      }
      state.requests.push({ path: req.url ?? "", headers: req.headers, body });
      const fail = state.fail;
      if (fail?.delayMs) await new Promise((r) => setTimeout(r, fail.delayMs));
      if (fail?.status) return send(fail.status, { error: { message: "injected failure", type: "server_error" } });
      if (fail?.garbage) return send(200, "<html>not json</html>");
      const inputs: string[] = typeof body.input === "string" ? [body.input] : body.input;
      if (!Array.isArray(inputs) || typeof body.model !== "string")
        return send(400, { error: { message: "model and input are required" } });
      const vectors = (await lexical.embed(inputs, "document")).map((v) =>
        Array.from(v.slice(0, fail?.dimensions ?? v.length)),
      );
      if (req.method === "POST" && req.url === "/v1/embeddings") {
        if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
          return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } });
        const data = vectors.map((embedding, index) => ({ object: "embedding", index, embedding })).reverse();
        return send(200, {
          object: "list",
          data,
          model: body.model,
          usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
        });
      }
      if (req.method === "POST" && req.url === "/api/embed") {
        return send(200, {
          model: body.model,
          embeddings: vectors,
          total_duration: 1000,
          load_duration: 10,
          prompt_eval_count: inputs.length,
        });
      }
      send(404, { error: "not found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}
