/**
 * @module gateway/pipeline/body
 * Reads the body of an HTTP request (JSON, or raw bytes for webhooks) with a hard size limit: over it → 413 (the read stops at
 * the limit, so a huge body costs no more than the limit); not JSON → 415; malformed → 400 naming
 * the position. The HTTP adapters call it (the ability routes hand it to the pipeline as its body
 * reader, so it runs only after authentication); the pipeline itself never sees the request.
 */
import type { IncomingMessage } from "node:http";
import { GantryError } from "@gantry/kit";
import { MAX_DEPTH } from "./input-shape.ts";

/**
 * Levels of objects and lists a body may nest, checked on the bytes before JSON.parse, which is far
 * slower on a deep body of `[[[[…` than this scan (docs/benchmarks.md, *Deep JSON
 * bodies*). Twice input-shape's MAX_DEPTH: bodies between the two are parsed, and input-shape names
 * the place that is too deep.
 */
export const MAX_BODY_DEPTH = 2 * MAX_DEPTH;

/** Whether the JSON text in `bytes` opens more than `limit` objects or lists at once (strings skipped). */
export function nestsDeeper(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i++; // a backslash escapes the next byte, quote included
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > limit) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}

export async function readJsonBody(req: IncomingMessage, maxBytes: number): Promise<{ value: unknown; raw: string }> {
  const type = req.headers["content-type"];
  if (type !== undefined && !/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
    throw new GantryError("unsupported_media_type", `Content-Type must be application/json (got "${type}").`);
  }
  const body = await readRawBody(req, maxBytes);
  const raw = body.toString("utf8");
  if (raw.trim() === "") throw new GantryError("invalid_request", 'The request body is empty; send {"input": {...}}.');
  if (nestsDeeper(body, MAX_BODY_DEPTH)) {
    throw new GantryError(
      "validation_failed",
      `The request body nests objects or lists more than ${MAX_BODY_DEPTH} levels deep; flatten it.`,
      {
        details: [
          {
            path: "",
            message: `The body nests more than ${MAX_BODY_DEPTH} levels deep`,
            code: "nested_too_deep",
            params: { limit: MAX_BODY_DEPTH },
          },
        ],
      },
    );
  }
  try {
    return { value: JSON.parse(raw), raw };
  } catch (err) {
    throw new GantryError("invalid_json", `The request body is not valid JSON: ${(err as Error).message}.`);
  }
}

/** The body as received, read up to `maxBytes` (over it → 413, and the read stops there). */
export async function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? NaN);
  if (declared > maxBytes) {
    req.resume();
    throw new GantryError(
      "payload_too_large",
      `The request body is ${declared} bytes; the limit is ${maxBytes} bytes.`,
      { reason: "Send less data per call, or split the work into several calls." },
    );
  }
  // Events rather than `for await`: the async iterator cost a few per cent of the gateway's CPU per call.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        req.resume();
        reject(
          new GantryError("payload_too_large", `The request body exceeds the limit of ${maxBytes} bytes.`, {
            reason: "Send less data per call, or split the work into several calls.",
          }),
        );
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    const closed = () =>
      reject(new GantryError("invalid_request", "The client closed the request before its body arrived."));
    req.once("error", closed);
    req.once("close", () => {
      if (!req.complete) closed();
    });
  });
}
